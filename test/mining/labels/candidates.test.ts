// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../../src/git';
import { ScratchRepo } from '../scratch-repo';
import { scanCandidates } from './candidates';
import { writeDossiers } from './dossiers';
import { type LandedPr, readLandedPrs } from './landed-prs';

/** Lines long enough for `git blame -M` to follow when they move (it wants 20 alphanumerics). */
const ALPHA = [
  'int alpha_total(int count) {',
  '    int alpha_result = compute_alpha_weight(count);',
  '    return alpha_result * ALPHA_SCALE_FACTOR;',
  '}',
];
const BETA = [
  'int beta_lookup(const char *beta_name) {',
  '    return find_beta_entry_in_table(beta_name, BETA_TABLE_SIZE);',
  '}',
];
const BASE = [
  'int base_one(void) { return original_base_value_one; }',
  'int base_two(void) { return original_base_value_two; }',
];
const lines = (...blocks: string[][]): string => blocks.flat().join('\n') + '\n';

let root: string;
let repo: ScratchRepo;
let prs: LandedPr[];
const sha: Record<string, string> = {};

/** A PR merged with a merge commit, as GitHub's merge button does: pull ref at the branch tip. */
async function mergePr(number: number, title: string, files: Record<string, string>, message = title): Promise<void> {
  await repo.run('checkout', '-q', '-b', `pr/${number}`, 'main');
  await repo.commit(message, files);
  await repo.run('update-ref', `refs/pull/${number}/head`, 'HEAD');
  await repo.run('checkout', '-q', 'main');
  await repo.run(
    'merge',
    '-q',
    '--no-ff',
    '-m',
    `Merge pull request #${number} from someone/pr-${number}\n\n${title}`,
    `pr/${number}`,
  );
}

/** A PR squashed onto main as "title (#N)"; its pull ref keeps the unmerged branch commit. */
async function squashPr(number: number, title: string, files: Record<string, string>, message = title): Promise<void> {
  await repo.run('checkout', '-q', '-b', `pr/${number}`, 'main');
  await repo.commit(message, files);
  await repo.run('update-ref', `refs/pull/${number}/head`, 'HEAD');
  await repo.run('checkout', '-q', 'main');
  await repo.commit(`${title} (#${number})\n\n${message}`, files);
  sha[`squash${number}`] = (await git(repo.path, ['rev-parse', 'HEAD'])).trim();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-labels-'));
  repo = new ScratchRepo(join(root, 'repo'));
  await mkdir(repo.path);
  await repo.run('init', '-q');
  await repo.commit('Initial import', {
    'lib.c': lines(BASE),
    'util.c': lines(['int util_start = 0;']),
    'notes.md': '# Notes\n',
  });
  await mergePr(1, 'Add alpha', { 'lib.c': lines(BASE, ALPHA) });
  await squashPr(2, 'Add beta lookup', { 'util.c': lines(['int util_start = 0;'], BETA, ['int util_end = 1;']) });
  await mergePr(3, 'Document the notes', { 'notes.md': '# Notes\n\nGamma notes written by the third change.\n' });
  // Not a PR: re-indents alpha and moves beta to the end of its file, so blame must look through both.
  await repo.commit('Reformat and reorder', {
    'lib.c': lines(
      BASE,
      ALPHA.map((line) => line.replace(/^ {4}/, '\t')),
    ),
    'util.c': lines(['int util_start = 0;', 'int util_end = 1;', 'int util_middle = 2;'], BETA),
  });
  await mergePr(
    5,
    'Scale alpha differently',
    {
      'lib.c': lines(BASE, [
        ALPHA[0],
        ALPHA[1].replace(/^ {4}/, '\t'),
        '\treturn alpha_result * ALPHA_SCALE_FACTOR / 2;',
        '}',
      ]),
    },
    'Scale alpha differently\n\nCloses #40.',
  );
  await squashPr(
    6,
    'Bounded beta lookup',
    {
      'util.c': lines(
        ['int util_start = 0;', 'int util_end = 1;', 'int util_middle = 2;'],
        [BETA[0], '    return find_beta_entry_in_table(beta_name, BETA_TABLE_SIZE - 1);', '}'],
      ),
    },
    'Bounded beta lookup\n\nAlso for issue #40.',
  );
  await mergePr(
    7,
    'More notes',
    { 'notes.md': '# Notes\n\nGamma notes written by the third change.\n\nDelta.\n' },
    'More notes\n\nA follow-up to #3.',
  );
  // Touches a line next to alpha that the initial import wrote: no blame pair with #1.
  await mergePr(
    8,
    'Base two reads the table',
    {
      'lib.c': lines(
        [BASE[0], 'int base_two(void) { return table_base_value_two; }'],
        [ALPHA[0], ALPHA[1].replace(/^ {4}/, '\t'), '\treturn alpha_result * ALPHA_SCALE_FACTOR / 2;', '}'],
      ),
    },
    `Base two reads the table\n\nLike ${sha.squash2.slice(0, 9)} did for beta.`,
  );
  // A rebase landing: the branch's two commits replayed onto main, the head with its author date (as
  // GitHub's button does), the first with a new one (as a rebase by hand may).
  await repo.run('checkout', '-q', '-b', 'pr/9', 'main');
  await repo.commit('Epsilon file', { 'epsilon.c': lines(['int epsilon_value = 5;']) });
  await repo.commit('Epsilon doubled', { 'epsilon.c': lines(['int epsilon_value = 10;']) });
  await repo.run('update-ref', 'refs/pull/9/head', 'HEAD');
  await repo.run('checkout', '-q', 'main');
  const [firstPick, headPick] = (await git(repo.path, ['rev-list', '--reverse', 'main..pr/9'])).trim().split('\n');
  const button = {
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_COMMITTER_NAME: 'Button',
    GIT_COMMITTER_EMAIL: 'button@example.test',
    GIT_COMMITTER_DATE: '1900000000 +0000',
  };
  await git(repo.path, ['cherry-pick', '-n', firstPick], { env: button });
  await git(repo.path, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-C', firstPick, '--date=1899990000 +0000'], {
    env: button,
  });
  await git(repo.path, ['-c', 'commit.gpgsign=false', 'cherry-pick', headPick], { env: button });
  prs = (await readLandedPrs(repo.path)).prs;
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('the reader finds each PR with how it landed, in landing order', () => {
  expect(prs.map((pr) => [pr.number, pr.landing, pr.title])).toEqual([
    [1, 'merge', 'Add alpha'],
    [2, 'squash', 'Add beta lookup'],
    [3, 'merge', 'Document the notes'],
    [5, 'merge', 'Scale alpha differently'],
    [6, 'squash', 'Bounded beta lookup'],
    [7, 'merge', 'More notes'],
    [8, 'merge', 'Base two reads the table'],
    [9, 'rebase', 'Epsilon doubled'],
  ]);
  const rebased = prs.find((pr) => pr.number === 9) as LandedPr;
  expect(rebased.landingShas).toHaveLength(2);
  expect(rebased.ownShas).toHaveLength(2);
  const times = prs.map((pr) => pr.landedAt);
  expect([...times].sort()).toEqual(times);
});

test('pairs: a number, a commit id, a shared issue, blame through a re-indent and through a move; none for lines A did not add', async () => {
  const { candidates } = await scanCandidates(repo.path, prs, new Set([1, 2, 3, 5, 6, 7, 8, 9]));
  expect(candidates.map(({ from, to, scans }) => ({ from, to, scans }))).toEqual([
    { from: 5, to: 1, scans: ['blame'] },
    { from: 6, to: 2, scans: ['blame'] },
    { from: 6, to: 5, scans: ['issue'] },
    { from: 7, to: 3, scans: ['ref'] },
    { from: 8, to: 2, scans: ['sha'] },
  ]);
  expect(candidates.find((c) => c.from === 5)?.overlap).toEqual([
    { path: 'lib.c', line: 5, text: '\treturn alpha_result * ALPHA_SCALE_FACTOR;' },
  ]);
  expect(candidates.find((c) => c.from === 6 && c.to === 2)?.overlap).toEqual([
    { path: 'util.c', line: 5, text: '    return find_beta_entry_in_table(beta_name, BETA_TABLE_SIZE);' },
  ]);
});

test('a dossier holds both PRs and the lines B took over from A, and pairs.jsonl the pairs', async () => {
  const { candidates, texts } = await scanCandidates(repo.path, prs, new Set([1, 2, 3, 5, 6, 7, 8, 9]));
  const out = join(root, 'dossiers');
  const stats = await writeDossiers(repo.path, out, prs, texts, candidates);
  expect(stats.files.map((file) => [file.name, file.pairs])).toEqual([
    ['B-5.md', 1],
    ['B-6.md', 2],
    ['B-7.md', 1],
    ['B-8.md', 1],
  ]);
  const dossier = await readFile(join(out, 'B-5.md'), 'utf8');
  expect(dossier).toContain('# Later PR #5: Scale alpha differently');
  expect(dossier).toContain('# Earlier PR #1: Add alpha');
  expect(dossier).toContain("Lines of #5's change that #1 had added");
  expect(dossier).toContain('lib.c:5: \treturn alpha_result * ALPHA_SCALE_FACTOR;');
  expect(dossier).toContain('+    return alpha_result * ALPHA_SCALE_FACTOR;'); // A's diff
  const pairs = (await readFile(join(out, 'pairs.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(pairs).toEqual(candidates.map(({ from, to }) => ({ from, to })));
});
