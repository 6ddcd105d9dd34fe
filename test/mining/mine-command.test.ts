import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { readChains } from '../../src/mining/output/chains-file';
import { companionPaths, mineToFiles } from '../../src/mining/output/mine-to-files';
import { MiningSummarySchema } from '../../src/mining/summary';
import { PullRequestRecordSchema } from '../../src/schemas';
import { cli as runCli } from '../support/cli';
import { FakeGitHub, rateLimited, serverError } from '../support/fake-github';
import { HistoryBuilder } from './history-builder';
import { widgetsStory } from './story';

const run = promisify(execFile);
const bin = resolve(__dirname, '../../bin/chainsmith.js');

let root: string;
let clone: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-mine-command-'));
  clone = join(root, 'widgets');
  await widgetsStory('merge').write(clone);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The built CLI (npm test builds it first), its exit code and output. */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { CHAINSMITH_HOME: root, ...env }, root);

test('a mine writes chains start can read, every PR record, and a summary', async () => {
  const out = join(root, 'out', 'chains.jsonl');
  await run('mkdir', ['-p', join(root, 'out')]);
  const r = await cli(['mine', '--repo', clone, '--name', 'acme/widgets', '--out', out, '--max-length', '3']);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^mined 24 PRs \(22 eligible; left out 1 bot, 1 no-code\)$/m);
  expect(r.stdout).toMatch(/^funnel: 24 merged → 22 eligible → \d+ linked → \d+ in chains$/m);
  expect(r.stdout).toMatch(/acme\/widgets#2-4-5: #2 → #4 → #5 {2}score 0\.925, strong$/m);

  const chains = await readChains(out);
  expect(chains.every((chain) => chain.prs.length >= 2 && chain.prs.length <= 3)).toBe(true);
  const paths = companionPaths(out);
  const records = (await readFile(paths.prs, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => PullRequestRecordSchema.parse(JSON.parse(line)));
  expect(records).toHaveLength(24);
  expect(records.every((record) => !('patch' in record))).toBe(true);
  const summary = MiningSummarySchema.parse(JSON.parse(await readFile(paths.summary, 'utf8')));
  expect(summary).toMatchObject({ repo: 'acme/widgets', source: 'local', prsSeen: 24, chains: chains.length });
  expect(Object.values(summary.chainsByLength).reduce((a, b) => a + b, 0)).toBe(chains.length);
});

test('--min-strength strong and --require-tests keep strong, tested chains; the summary counts the funnel, strengths and tested chains', async () => {
  // #1 → #2 → #3 → #4 → #5 by their words; #3 changes no test, #5 only fixes a typo (a weak link).
  const tests = (name: string) => ({ [`tests/test_${name}.py`]: `def test_${name}():\n    assert ${name}()\n` });
  const history = new HistoryBuilder({ 'pkg/__init__.py': '' });
  const steps: [number, string, Record<string, string>][] = [
    [1, 'Add the cache', { 'pkg/cache.py': 'def get(key):\n    return store[key]\n', ...tests('get') }],
    [
      2,
      'Follow-up to #1: expire entries',
      { 'pkg/expire.py': 'def expire(key):\n    del store[key]\n', ...tests('expire') },
    ],
    [3, 'Follow-up to #2: log expiries', { 'pkg/log.py': 'def log(key):\n    print(key)\n' }],
    [
      4,
      'Follow-up to #3: count expiries',
      { 'pkg/count.py': 'def count():\n    return len(store)\n', ...tests('count') },
    ],
    [
      5,
      'Follow-up to #4: fix a typo in the count message',
      { 'pkg/count.py': 'def count():\n    return len(store)  # entries\n', ...tests('count_message') },
    ],
  ];
  for (const [number, title, files] of steps)
    history.pr({ number, title, landing: 'squash', commits: [{ message: title, files }] });
  const repo = join(root, 'tested');
  await history.write(repo);
  await run('mkdir', ['-p', join(root, 'strict')]);
  const read = async (out: string) => ({
    chains: await readChains(out).catch(() => []),
    summary: MiningSummarySchema.parse(JSON.parse(await readFile(companionPaths(out).summary, 'utf8'))),
    records: (await readFile(companionPaths(out).prs, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => PullRequestRecordSchema.parse(JSON.parse(line))),
  });
  const ids = (chains: { id: string; strength?: string }[]) => chains.map((chain) => `${chain.id} ${chain.strength}`);
  const loose = join(root, 'strict', 'loose.jsonl');
  expect(
    (await cli(['mine', '--repo', repo, '--name', 'acme/cache', '--out', loose, '--min-strength', 'weak'])).code,
  ).toBe(0);
  const strict = join(root, 'strict', 'strict.jsonl');
  const r = await cli([
    'mine',
    '--repo',
    repo,
    '--name',
    'acme/cache',
    '--out',
    strict,
    '--min-strength',
    'strong',
    '--require-tests',
  ]);
  expect(r.code).toBe(0);
  const [before, after] = [await read(loose), await read(strict)];
  expect(before.records.map((pr) => [pr.number, pr.changesTests])).toEqual([
    [1, true],
    [2, true],
    [3, false],
    [4, true],
    [5, true],
  ]);
  expect(ids(before.chains)).toEqual(['acme/cache#1-2-3-4-5 weak']);
  expect(before.summary).toMatchObject({
    chainsWithTests: 0,
    chainsByStrength: { strong: 0, weak: 1 },
    funnel: { merged: 5, eligible: 5, linked: 5, inChains: 5 },
  });
  // Cut, not dropped: without #3 the tested PRs still hold a chain; without the weak typo link, #5 is left out.
  expect(ids(after.chains)).toEqual(['acme/cache#1-2 strong']);
  expect(after.summary).toMatchObject({
    chainsWithTests: 1,
    chainsByStrength: { strong: 1, weak: 0 },
    funnel: { merged: 5, eligible: 4, linked: 2, inChains: 2 },
  });
  expect(after.summary.dropped['no-tests']).toBe(1);
  expect(after.summary.linksByKind?.['follow-up']).toEqual({ strong: 3, weak: 1 });
  expect(r.stdout).toContain('funnel: 5 merged → 4 eligible → 2 linked → 2 in chains');
  expect(r.stdout).toContain('4 follow-up (3 strong, 1 weak)');
});

test('bad input exits 2 with one clear line and writes nothing', async () => {
  const out = join(root, 'bad.jsonl');
  const notRepo = await mkdtemp(join(root, 'plain-'));
  const cases: [string[], RegExp][] = [
    [['mine', '--out', out], /^error: say what to mine: either --repo PATH \(a local clone\) or --github OWNER\/NAME$/],
    [['mine', '--repo', notRepo, '--out', out], /^error: not a git repository: /],
    [['mine', '--repo', clone, '--github', 'a/b', '--out', out], /^error: say what to mine/],
    [
      ['mine', '--repo', clone, '--out', out, '--min-confidence', '2'],
      /^error: --min-confidence must be a number from 0 to 1, got "2"$/,
    ],
    [
      ['mine', '--repo', clone, '--out', out, '--min-strength', 'medium'],
      /^error: --min-strength wants strong or weak, got "medium"$/,
    ],
    [
      ['mine', '--repo', clone, '--out', out, '--min-strength', ''],
      /^error: --min-strength wants strong or weak, got ""$/,
    ],
    [['mine', '--repo', clone, '--out', out, '--require-tests', 'yes'], /^error: too many arguments for 'mine'/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(args);
    expect({ args, code: r.code, stderr: r.stderr.trim() }).toEqual({
      args,
      code: 2,
      stderr: expect.stringMatching(message),
    });
  }
  expect(existsSync(out)).toBe(false);
});

test('an output location that cannot take the files is refused before mining: exit 2, one line, nothing written', async () => {
  const parentIsFile = join(root, 'a-file');
  await run('touch', [parentIsFile]);
  const locked = await mkdtemp(join(root, 'locked-'));
  await run('chmod', ['555', locked]);
  await run('chmod', ['755', root]);
  const cases: [string[], string, RegExp][] = [
    [
      [],
      join(root, 'no-such-folder', 'chains.jsonl'),
      /^error: --out \S+: the folder \S+no-such-folder does not exist$/,
    ],
    [[], join(parentIsFile, 'chains.jsonl'), /^error: --out \S+: the folder \S+a-file does not exist$/],
    [[], root, /^error: --out \S+ is a folder; name the chains file to write$/],
  ];
  // Root may write anywhere: the folder is locked against an ordinary user, who runs the CLI then. That
  // user must be able to run this checkout (a clone inside a 0700 folder, as `mktemp -d` makes, is not).
  const asRoot = process.getuid?.() === 0;
  const nobody = ['runuser', '-u', 'nobody', '--'];
  if (!asRoot || (await asUser(nobody, ['--help'])).code === 0) {
    cases.push([
      asRoot ? nobody : [],
      join(locked, 'chains.jsonl'),
      /^error: --out \S+: cannot write in \S+locked-\w+ \(EACCES\)$/,
    ]);
  } else {
    console.warn(
      `skipping the unwritable-folder case: user nobody cannot run ${bin} (a folder above it is closed to others)`,
    );
  }
  for (const [prefix, out, message] of cases) {
    const r = prefix.length
      ? await asUser(prefix, ['mine', '--repo', clone, '--out', out])
      : await cli(['mine', '--repo', clone, '--out', out]);
    expect({ out, code: r.code, stderr: r.stderr.trim(), stdout: r.stdout }).toEqual({
      out,
      code: 2,
      stderr: expect.stringMatching(message),
      stdout: '',
    });
  }
  expect(await readdir(locked)).toEqual([]);
  expect(existsSync(join(root, 'no-such-folder'))).toBe(false);
});

/** The CLI as another user (only root can do this; the repository must be readable to them). */
async function asUser(prefix: string[], args: string[]) {
  try {
    const { stdout, stderr } = await run(prefix[0], [...prefix.slice(1), 'node', bin, ...args], {
      env: { ...process.env, CHAINSMITH_HOME: root },
      cwd: '/',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('an unknown GitHub repository exits 2 with a clear line, through the real client', async () => {
  const fake = new FakeGitHub([]);
  const baseUrl = await fake.start();
  try {
    const out = join(root, 'gh.jsonl');
    const r = await cli(['mine', '--github', 'acme/nope', '--out', out], {
      CHAINSMITH_GITHUB_URL: baseUrl,
      GITHUB_TOKEN: 'x',
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `error: GitHub has no repository acme/nope at ${baseUrl}, or the token cannot see it (404 on GET /repos/acme/nope)`,
    );
    expect(existsSync(out)).toBe(false);
  } finally {
    await fake.stop();
  }
});

test('GitHub rate-limited or down is not bad input: exit 75 with one line saying when to retry, nothing written', async () => {
  const fake = new FakeGitHub([]);
  const baseUrl = await fake.start();
  try {
    const out = join(root, 'limited.jsonl');
    fake.fail(() => true, rateLimited(1800));
    const limited = await cli(['mine', '--github', 'acme/widgets', '--out', out], {
      CHAINSMITH_GITHUB_URL: baseUrl,
      GITHUB_TOKEN: 'x',
    });
    expect(limited.code).toBe(75);
    expect(limited.stderr.trim()).toMatch(
      /^error: GitHub's rate limit ran out while fetching GET \/repos\/acme\/widgets \(it resets at \S+Z, in 30 minutes\); what was fetched is cached in \S+, so running the same command again continues from there after the reset$/,
    );

    fake.clearFaults();
    fake.fail(() => true, serverError(503), 100);
    const down = await cli(['mine', '--github', 'acme/widgets', '--out', out], {
      CHAINSMITH_GITHUB_URL: baseUrl,
      GITHUB_TOKEN: 'x',
    });
    expect(down.code).toBe(75);
    expect(down.stderr.trim()).toMatch(
      /^error: GitHub kept answering 503 for GET \/repos\/acme\/widgets after retrying; try again in a few minutes: /,
    );
    expect(existsSync(out)).toBe(false);

    const help = await cli(['--help']);
    expect(help.stdout).toMatch(/^ {2}75 {2}retry later: /m);
  } finally {
    await fake.stop();
  }
});

test('the command refuses --clone without --github', async () => {
  await expect(mineToFiles({ repo: clone, clone, out: join(root, 'x.jsonl') }, { dataDir: root })).rejects.toThrow(
    /--clone goes with --github/,
  );
});
