import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pythonChain } from '../support/python-chain';

const root = resolve(__dirname, '../..');
const run = promisify(execFile);

/** Runs the built CLI (npm test builds it) with its own data directory. */
async function cli(args: string[], home: string) {
  try {
    const r = await run('node', [join(root, 'bin/chainsmith.js'), ...args], { env: { ...process.env, CHAINSMITH_HOME: home }, cwd: home });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('chainsmith validate', () => {
  const home = mkdtempSync(join(tmpdir(), 'chainsmith-validate-'));
  const chains = join(home, 'chains.jsonl');

  beforeAll(async () => {
    const { chain } = await pythonChain(join(home, 'shapes'), 'gen/shapes');
    const broken = { ...chain, id: 'broken', repo: { ...chain.repo, name: 'gen/broken' }, prs: [{ ...chain.prs[0], baseSha: 'deadbeef'.repeat(5) }] };
    writeFileSync(chains, [chain, broken].map((c) => JSON.stringify(c)).join('\n') + '\n');
  });

  test('prints each stage as it goes, the yield per repository and language, and why each stage cannot be judged', async () => {
    const out = join(home, 'stages.jsonl');
    const r = await cli(['validate', '--chains', chains, '--out', out], home);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[1/4] gen/shapes PR #1: verified (1 FAIL_TO_PASS, 1 PASS_TO_PASS)');
    expect(r.stdout).toContain('[2/4] gen/shapes PR #2: no verifying test (1 PASS_TO_PASS, 0 broken on the gold change)');
    expect(r.stdout).toMatch(/\[4\/4\] gen\/broken PR #1: invalid: the base commit deadbeef/);
    expect(r.stdout).toMatch(/^gen\/broken\s+unknown\s+1\s+0\s+0\s+1\s+0%$/m);
    expect(r.stdout).toMatch(/^gen\/shapes\s+python\s+3\s+2\s+1\s+0\s+67%$/m);
    expect(r.stdout).toContain('2 stage(s) nothing can judge (no judge model is configured)');
    expect(r.stdout).toContain('gen/shapes PR #2: no test of the PR fails before it and passes after it');
    const records = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.map((g) => g.status)).toEqual(['verified', 'no-verifying-test', 'verified', 'invalid']);
  });

  test('an output file that cannot be written is refused before any work, with one line and exit 2', async () => {
    const out = join(home, 'missing', 'stages.jsonl');
    const r = await cli(['validate', '--chains', chains, '--out', out], home);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`error: cannot write ${out}: the folder ${join(home, 'missing')} does not exist or is not writable`);
    expect(existsSync(join(home, 'missing'))).toBe(false);
  });
});
