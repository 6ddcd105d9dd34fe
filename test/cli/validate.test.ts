import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cli as runCli } from '../support/cli';
import { pythonChain } from '../support/python-chain';

const root = resolve(__dirname, '../..');
const bin = join(root, 'bin/chainsmith.js');

/** The built CLI (npm test builds it) with its own data directory. */
const cli = (args: string[], home: string) => runCli(args, { CHAINSMITH_HOME: home }, home);

/** Starts the CLI and kills it (SIGKILL: nothing gets to clean up) as soon as it prints its first stage's line. */
function killAfterFirstStage(args: string[], home: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('node', [bin, ...args], {
      env: { ...process.env, CHAINSMITH_HOME: home },
      cwd: home,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (/^\[1\/\d+\] /m.test(stdout)) child.kill('SIGKILL');
    });
    child.on('error', fail);
    child.on('close', () => done(stdout));
  });
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('chainsmith validate', () => {
  const home = mkdtempSync(join(tmpdir(), 'chainsmith-validate-'));
  const chains = join(home, 'chains.jsonl');

  beforeAll(async () => {
    const { chain } = await pythonChain(join(home, 'shapes'), 'gen/shapes');
    const broken = {
      ...chain,
      id: 'broken',
      repo: { ...chain.repo, name: 'gen/broken' },
      prs: [{ ...chain.prs[0], baseSha: 'deadbeef'.repeat(5) }],
    };
    writeFileSync(chains, [chain, broken].map((c) => JSON.stringify(c)).join('\n') + '\n');
  });

  test('prints each stage as it goes with its reason whole, the funnel per repository and language, and why each stage cannot be judged', async () => {
    const out = join(home, 'stages.jsonl');
    const r = await cli(['validate', '--chains', chains, '--out', out], home);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^\[1\/4\] gen\/shapes PR #1: verified \(1 FAIL_TO_PASS, 1 PASS_TO_PASS\) · \d+[sm], about \d+[sm] left$/m,
    );
    // A stage that is not verified says why, with the command, its exit code and its last lines.
    expect(r.stdout).toMatch(
      /^\[2\/4\] gen\/shapes PR #2: no-verifying-test: no test of the PR fails before it and passes after it \(1 PASS_TO_PASS, 0 failing after the gold change too\) · \d+[sm].*\n {4}\$ python3 -m pytest .*tests\/test_square\.py {2}\(exit 0\)\n {4}\| .*\n(?: {4}\| .*\n)*? {4}\| PASSED tests\/test_square\.py::test_square_of_zero\n/m,
    );
    expect(r.stdout).toMatch(/^\[4\/4\] gen\/broken PR #1: invalid-inputs: the base commit deadbeef/m);
    expect(r.stdout).toMatch(
      /^repository\s+language\s+stages\s+with tests\s+environment built\s+tests runnable\s+verifying test\s+stable\s+yield$/m,
    );
    expect(r.stdout).toMatch(/^gen\/broken\s+unknown\s+1\s+1\s+0\s+0\s+0\s+0\s+0%$/m);
    expect(r.stdout).toMatch(/^gen\/shapes\s+python\s+3\s+3\s+3\s+3\s+2\s+2\s+67%$/m);
    expect(r.stdout).toContain(
      'gen/shapes (python):\n  chains: 1; every stage verified: 0; cut at stage 2: 1 (no-verifying-test 1)',
    );
    expect(r.stdout).toContain(
      'gen/broken (unknown):\n  chains: 1; every stage verified: 0; cut at stage 1: 1 (invalid-inputs 1)',
    );
    expect(r.stdout).toContain('2 stage(s) nothing can judge (no judge model is configured)');
    expect(r.stdout).toContain('gen/shapes PR #2: no test of the PR fails before it and passes after it');
    const records = lines(out);
    expect(records.map((g) => [g.chainId, g.stage, g.status, g.reason?.kind])).toEqual([
      ['gen/shapes#1-2-3', 0, 'verified', undefined],
      ['gen/shapes#1-2-3', 1, 'no-verifying-test', 'no-verifying-test'],
      ['gen/shapes#1-2-3', 2, 'verified', undefined],
      ['broken', 0, 'invalid', 'invalid-inputs'],
    ]);
    expect(records[1].reason).toMatchObject({
      command: expect.stringMatching(/pytest .*tests\/test_square\.py$/),
      exitCode: 0,
      tail: expect.stringContaining('1 passed'),
    });
  });

  test('a run killed after its first stage resumes from --out: the stages there are not validated again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainsmith-resume-'));
    // The first chain's clone goes away after the kill: validating its stage again would find no base commit.
    const { chain: first } = await pythonChain(join(dir, 'first'), 'gen/first');
    const { chain: then } = await pythonChain(join(dir, 'then'), 'gen/then');
    const file = join(dir, 'chains.jsonl');
    writeFileSync(
      file,
      [{ ...first, prs: first.prs.slice(0, 1) }, then].map((c) => JSON.stringify(c)).join('\n') + '\n',
    );
    const out = join(dir, 'stages.jsonl');

    const killed = await killAfterFirstStage(['validate', '--chains', file, '--out', out], home);
    expect(killed).toMatch(/^\[1\/4\] gen\/first PR #1: verified/m);
    const kept = lines(out);
    expect(kept.length).toBeGreaterThanOrEqual(1);
    expect(kept[0]).toMatchObject({ chainId: first.id, stage: 0, status: 'verified' });
    rmSync(join(dir, 'first'), { recursive: true, force: true });
    // A crash in the middle of a write leaves a line cut short: the rerun drops it.
    appendFileSync(out, '{"chainId":"gen/then#1-2-3","stage":2,"comm');

    const r = await cli(['validate', '--chains', file, '--out', out], home);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`resuming: ${kept.length} of them are in ${out} already and are not validated again`);
    expect(r.stdout).toMatch(
      new RegExp(
        `^\\[1/4\\] gen/first PR #1: verified \\(1 FAIL_TO_PASS, 1 PASS_TO_PASS\\) \\(in ${out.replace(/[/.]/g, '\\$&')} already\\)$`,
        'm',
      ),
    );
    expect(r.stdout).toMatch(/^\[4\/4\] gen\/then PR #3: verified .* · \d+[sm]$/m);
    const all = lines(out);
    expect(all.map((g) => [g.chainId, g.stage, g.status])).toEqual([
      [first.id, 0, 'verified'],
      [then.id, 0, 'verified'],
      [then.id, 1, 'no-verifying-test'],
      [then.id, 2, 'verified'],
    ]);
    expect(all.slice(0, kept.length)).toEqual(kept);
  });

  test('an output file that cannot be written is refused before any work, with one line and exit 2', async () => {
    const out = join(home, 'missing', 'stages.jsonl');
    const r = await cli(['validate', '--chains', chains, '--out', out], home);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      `error: cannot write ${out}: the folder ${join(home, 'missing')} does not exist or is not writable`,
    );
    expect(existsSync(join(home, 'missing'))).toBe(false);
  });
});
