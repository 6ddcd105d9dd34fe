import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const root = resolve(__dirname, '../..');
const run = promisify(execFile);

/** Runs the built CLI (npm test builds it first) and returns its exit code and output. */
export async function cli(args: string[], env: Record<string, string> = {}, cwd = root) {
  try {
    const r = await run('node', [join(root, 'bin/chainsmith.js'), ...args], { env: { ...process.env, ...env }, cwd });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
