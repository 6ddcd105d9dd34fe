import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MineResult } from '../../../src/mining/output/mine-result';
import { companionPaths, mineToFiles } from '../../../src/mining/output/mine-to-files';
import { EdgeSchema } from '../../../src/schemas';
import { lines, ReleaseRepo } from '../release-branch';

let root: string;
let repo: ReleaseRepo;
let result: MineResult;
let printed: jest.SpyInstance;
const warnings: string[] = [];

/**
 * One history with a PR for each way a link is written: sha references in every form, the
 * repository's own URLs, a revert by title and one by GitHub's revert-N branch, two PRs joined
 * through an issue, and one that rewrites another's lines. The clone's origin gives its name.
 */
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-links-'));
  repo = await new ReleaseRepo(join(root, 'app')).init();
  await repo.run('remote', 'add', 'origin', 'https://github.com/acme/app.git');
  const sha: Record<number, string> = {};
  for (const [n, title] of [
    [1, 'Add parser'],
    [2, 'Add lexer'],
    [3, 'Add cache'],
    [4, 'Add CLI'],
    [5, 'Add config'],
    [6, 'Add output'],
  ] as const) {
    sha[n] = await repo.quickPr(n, title);
  }
  await repo.quickPr(7, 'Fix unicode handling', 'Fixes #100.');
  await repo.quickPr(8, 'Add formatter', '', { 'src/format.py': lines('format', 20) });
  await repo.quickPr(10, 'Fix parser crash', `Parsing now behaves as it was before ${sha[1]}.`);
  await repo.quickPr(11, 'Handle empty input', `The crash was introduced in ${sha[2].slice(0, 9)}.`);
  // Hex-looking words that are no commit of the repository link nothing: a decade, deadbeef, 1234567, abc1234.
  await repo.quickPr(
    12,
    'Bound the cache',
    `Commit ${sha[3].slice(0, 12).toUpperCase()} left it unbounded for a decade; deadbeef 1234567 abc1234.`,
  );
  await repo.quickPr(13, 'Speed up start-up', `Start-up got slow in ${sha[4].slice(0, 10)} somehow.`);
  await repo.quickPr(
    14,
    'Read config lazily',
    `Follow-up to https://github.com/acme/app/pull/5 and https://github.com/acme/app/commit/${sha[6]}.`,
  );
  await repo.quickPr(15, 'Revert "Add output"');
  await repo.branch('revert-4-add-cli', 'main', ['Revert the CLI']);
  await repo.mergePr(16, 'main', 'revert-4-add-cli', 'Take the CLI out again');
  await repo.quickPr(17, 'Handle surrogate pairs', 'Follow-up to #100: surrogates were still mangled.');
  await repo.quickPr(18, 'Test more scripts', 'Related to #100.');
  const format = lines('format', 20).split('\n');
  format.splice(4, 4, 'rounded 5', 'rounded 6', 'rounded 7', 'rounded 8');
  await repo.quickPr(19, 'Fix formatter rounding', '', { 'src/format.py': format.join('\n') });
  // A ref GitHub never makes, on a commit that landed by hand: the mine goes on without it.
  await repo.branch('odd', 'main', ['Odd work']);
  await repo.run('update-ref', 'refs/pull/0/head', 'odd');
  await repo.syncMerge('main', 'odd');
  printed = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  result = await mineToFiles(
    { repo: repo.path, out: join(root, 'chains.jsonl') },
    { dataDir: root, warn: (m) => warnings.push(m) },
  );
});

afterAll(async () => {
  jest.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

test('every way of naming a PR becomes exactly one typed edge, and edges.jsonl holds them', async () => {
  const written = (await readFile(companionPaths(join(root, 'chains.jsonl')).edges, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => EdgeSchema.parse(JSON.parse(line)));
  expect(written).toEqual(result.edges);
  expect(written.map(({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`)).toEqual([
    '10->1 reverts 0.85',
    '11->2 regression-of 0.95',
    '12->3 mentions 0.5',
    '13->4 mentions 0.5',
    '14->5 follow-up 0.9',
    '14->6 mentions 0.5',
    '15->6 reverts 0.85',
    '16->4 reverts 0.9',
    '17->7 follow-up 0.81',
    '18->7 mentions 0.4',
    '19->8 code-history 0.9',
  ]);
  expect(written.find((edge) => edge.from === 17)?.evidence).toBe(
    '#17 refers to issue #100, which #7 closed: Follow-up to #100: surrogates were still mangled.',
  );
  expect(written.find((edge) => edge.from === 19)?.evidence).toBe(
    '#19 changes 4 lines that #8 wrote (100% of its 8 changed lines of code); #19 says it fixes; both name formatter',
  );
});

test('mining into files prints nothing: a scheduled mine inside a worker stays silent, and `chainsmith mine` does the printing', () => {
  expect(printed).not.toHaveBeenCalled();
});

test('a PR that cannot be recorded is skipped with a warning and counted; the rest is mined', () => {
  expect(result.summary.skipped).toEqual([
    { number: 0, reason: expect.stringMatching(/does not fit the schema \(number: /) },
  ]);
  expect(result.summary.dropped.unrecordable).toBe(1);
  expect(warnings).toEqual([expect.stringMatching(/^skipped PR #0: /)]);
  expect(result.summary.prsSeen).toBe(18);
});

test('chains follow the links at 0.6 or more', () => {
  expect(result.chains.map((chain) => chain.id)).toEqual([
    'app#1-10',
    'app#2-11',
    'app#4-16',
    'app#5-14',
    'app#6-15',
    'app#7-17',
    'app#8-19',
  ]);
});
