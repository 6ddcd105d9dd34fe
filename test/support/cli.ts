import { join, resolve } from 'node:path';
import { run } from '../../src/process/run';

const root = resolve(__dirname, '../..');

/** Runs the built CLI (npm test builds it first) and returns its exit code and output. */
export async function cli(args: string[], env: Record<string, string> = {}, cwd = root) {
  const r = await run('node', [join(root, 'bin/chainsmith.js'), ...args], {
    env,
    cwd,
    maxOutputBytes: 64 * 1024 * 1024,
  });
  return { code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}
