// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../../src/demo/generate-repo';
import { MiningError, NotAGitRepositoryError } from '../../../src/mining/errors';
import { git } from '../../../src/git';
import type { PullRequest } from '../../../src/schemas';
import { ScratchRepo } from '../scratch-repo';
import { mineLocalRepo } from '../../support/mining';

let root: string;
let demo: string;
let prs: PullRequest[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-mining-'));
  demo = (await generateDemoRepo(join(root, 'tally'))).path;
  prs = await mineLocalRepo(demo);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The demo's pull requests as src/demo/tally-history.ts writes them. */
const DEMO_PULL_REQUESTS = [
  { number: 2, title: 'Add median() to tally.stats', landing: 'merge' },
  { number: 3, title: 'Docs: describe installation in README', landing: 'squash' },
  { number: 4, title: 'Fix regression from #2: median of even-length lists', landing: 'squash' },
  { number: 5, title: 'Add variance() to tally.stats', landing: 'merge' },
  { number: 6, title: 'Follow-up to #4: let median() take a key function', landing: 'merge' },
];

const byNumber = (number: number): PullRequest => prs.find((pr) => pr.number === number) as PullRequest;
const revParse = async (revision: string): Promise<string> => (await git(demo, ['rev-parse', revision])).trim();

describe('the demo repository', () => {
  test('yields PRs #2 to #6, oldest first, with their titles and landing styles', () => {
    expect(prs.map(({ number, title, landing }) => ({ number, title, landing }))).toEqual(DEMO_PULL_REQUESTS);
    expect(prs.map((pr) => [pr.number, pr.landing])).toEqual([
      [2, 'merge'],
      [3, 'squash'],
      [4, 'squash'],
      [5, 'merge'],
      [6, 'merge'],
    ]);
  });

  test('each PR is based on the first parent of the commit that landed it', async () => {
    for (const pr of prs) {
      expect(pr.baseSha).toBe(await revParse(`${pr.mergeSha}^1`));
    }
    expect(byNumber(6).mergeSha).toBe(await revParse('HEAD'));
    expect(byNumber(2).baseSha).toBe(await revParse('HEAD~5'));
  });

  test('titles come from the merge body, the squash subject or the branch commit', () => {
    expect(byNumber(2).title).toBe('Add median() to tally.stats');
    expect(byNumber(3).title).toBe('Docs: describe installation in README');
    expect(byNumber(4).title).toBe('Fix regression from #2: median of even-length lists');
    // #6's merge has no body, so its title is its branch commit's subject.
    expect(byNumber(6).title).toBe('Follow-up to #4: let median() take a key function');
    expect(byNumber(4).body).toMatch(/^median\(\) introduced in #2 returned the upper middle element/);
  });

  test("messages hold the landing commit and, for merges, the branch's own commits", () => {
    expect(byNumber(2).messages).toHaveLength(3);
    expect(byNumber(2).messages[0]).toBe('Merge pull request #2 from demo/median\n\nAdd median() to tally.stats');
    expect(byNumber(2).messages[2]).toBe('Test median() on odd-length and single-value lists');
    expect(byNumber(6).messages[0]).toBe('Merge pull request #6 from demo/median-key');
    expect(byNumber(6).messages[1]).toMatch(/^Follow-up to #4: let median\(\) take a key function\n\n/);
    expect(byNumber(4).messages).toHaveLength(1);
    expect(byNumber(2).author).toBe('Ben Okafor');
  });

  test('files carry status, line counts and a kind', () => {
    expect(byNumber(2).files).toEqual([
      { path: 'tally/__init__.py', kind: 'code', status: 'modified', additions: 2, deletions: 2, binary: false },
      { path: 'tally/stats.py', kind: 'code', status: 'modified', additions: 8, deletions: 0, binary: false },
      { path: 'tests/test_median.py', kind: 'test', status: 'added', additions: 16, deletions: 0, binary: false },
    ]);
    expect(byNumber(3).files.map((file) => [file.path, file.kind])).toEqual([['README.md', 'other']]);
  });

  test('the patch turns the base tree into the merge tree', async () => {
    const pr = byNumber(2);
    expect(pr.patch).toMatch(
      /^diff --git a\/tally\/__init__.py b\/tally\/__init__.py\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} /,
    );
    const clone = join(root, 'apply-check');
    await git(root, ['clone', '-q', demo, clone]);
    await git(clone, ['checkout', '-q', '--detach', pr.baseSha]);
    await writeFile(join(root, 'pr2.patch'), pr.patch);
    await git(clone, ['apply', '--index', join(root, 'pr2.patch')]);
    expect((await git(clone, ['write-tree'])).trim()).toBe(
      (await git(clone, ['rev-parse', `${pr.mergeSha}^{tree}`])).trim(),
    );
  });
});

describe('other landing styles', () => {
  let scratch: ScratchRepo;
  let mined: PullRequest[];

  beforeAll(async () => {
    scratch = new ScratchRepo(join(root, 'scratch'));
    await mkdir(scratch.path);
    await scratch.run('init', '-q');
    await scratch.commit('Initial import', {
      'src/app.py': 'def greet():\n    return "hi"\n',
      'src/old_name.py': 'VALUE = 1\n',
      'docs/guide.md': '# Guide\n',
    });
    await scratch.run('checkout', '-q', '-b', 'pr/7');
    await scratch.commit('Teach app to greet by name', {
      'src/app.py': 'def greet(name):\n    return "hi " + name\n',
      'src/old_name.py': null,
      'src/new_name.py': 'VALUE = 1\n',
      'docs/guide.md': null,
      'assets/logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02, 0x00, 0xff]),
      'tests/test_app.py': 'from src.app import greet\n',
    });
    await scratch.run('checkout', '-q', 'main');
    await scratch.run('merge', '-q', '--no-ff', '--no-edit', 'pr/7');
    await scratch.run('checkout', '-q', '-b', 'farewell');
    await scratch.commit('Add farewell', { 'src/bye.py': 'def bye():\n    return "bye"\n' });
    await scratch.run('checkout', '-q', 'main');
    await scratch.run('merge', '-q', '--no-ff', '-m', 'Say goodbye too (#8)', 'farewell');
    await scratch.commit('Tidy whitespace', { 'src/bye.py': 'def bye():\n    return "bye!"\n' });
    await scratch.run('branch', 'release');
    await scratch.commit('Speed up greeting (#9)\n\nFixes #100', {
      'src/app.py': 'def greet(name):\n    return f"hi {name}"\n',
    });
    mined = await mineLocalRepo(scratch.path);
  });

  test('"Merge branch \'pr/N\'" and merges titled "… (#N)" are merges, a titled commit is a squash', () => {
    expect(mined.map((pr) => [pr.number, pr.landing, pr.title])).toEqual([
      [7, 'merge', 'Teach app to greet by name'],
      [8, 'merge', 'Say goodbye too'],
      [9, 'squash', 'Speed up greeting'],
    ]);
    expect(mined[2].body).toBe('Fixes #100');
    expect(mined[1].messages).toEqual(['Say goodbye too (#8)', 'Add farewell']);
  });

  test('renames, deletions and binary files are reported as such', () => {
    const files = Object.fromEntries(mined[0].files.map((file) => [file.path, file]));
    expect(files['src/new_name.py']).toMatchObject({ status: 'renamed', kind: 'code' });
    expect(files['docs/guide.md']).toMatchObject({ status: 'deleted', kind: 'other', deletions: 1 });
    expect(files['assets/logo.png']).toMatchObject({ status: 'added', kind: 'other', binary: true, additions: 0 });
    expect(files['tests/test_app.py']).toMatchObject({ status: 'added', kind: 'test' });
    expect(files['src/app.py']).toMatchObject({ status: 'modified', additions: 2, deletions: 2 });
    expect(mined[0].patch).toContain('GIT binary patch');
  });

  test('another branch can be mined', async () => {
    const release = await mineLocalRepo(scratch.path, { branch: 'release' });
    expect(release.map((pr) => pr.number)).toEqual([7, 8]);
    await expect(mineLocalRepo(scratch.path, { branch: 'no-such-branch' })).rejects.toThrow(
      /no commit named no-such-branch/,
    );
  });
});

describe('a PR stacked on another PR', () => {
  // #7's branch starts from #6's. #6 lands first by squash, so its own commit never reaches main and
  // #7's head still reaches it: it is #6's, not #7's, whether #7 lands by merge or by squash.
  async function stacked(
    name: string,
    landSeven: (repo: ScratchRepo) => Promise<void>,
  ): Promise<{ repo: ScratchRepo; prs: PullRequest[] }> {
    const repo = new ScratchRepo(join(root, name));
    await mkdir(repo.path);
    await repo.run('init', '-q');
    await repo.commit('Initial import', { 'src/app.py': 'def main():\n    pass\n' });
    await repo.run('checkout', '-q', '-b', 'parser');
    await repo.commit('Add a parser', { 'src/parser.py': 'def parse(text):\n    return text.split()\n' });
    await repo.run('update-ref', 'refs/pull/6/head', 'HEAD');
    await repo.run('checkout', '-q', '-b', 'cli');
    await repo.commit('Parse the command line', {
      'src/app.py': 'from src.parser import parse\n\ndef main(argv):\n    return parse(argv)\n',
    });
    await repo.run('update-ref', 'refs/pull/7/head', 'HEAD');
    await repo.run('checkout', '-q', 'main');
    await repo.run('merge', '-q', '--squash', 'parser');
    await repo.run('commit', '-q', '-m', 'Add a parser (#6)');
    await landSeven(repo);
    return { repo, prs: await mineLocalRepo(repo.path) };
  }

  const ownSubjects = async (repo: ScratchRepo, pr: PullRequest) =>
    Promise.all((pr.commitShas ?? []).map(async (sha) => (await repo.run('log', '-1', '--format=%s', sha)).trim()));

  test('landed by merge, #7 keeps only its own commit', async () => {
    const { repo, prs } = await stacked('stacked-merge', (r) =>
      r.run('merge', '-q', '--no-ff', '-m', 'Merge pull request #7 from dev/cli', 'cli').then(() => undefined),
    );
    expect(prs.map((pr) => [pr.number, pr.landing])).toEqual([
      [6, 'squash'],
      [7, 'merge'],
    ]);
    expect(await ownSubjects(repo, prs[0])).toEqual(['Add a parser']);
    expect(await ownSubjects(repo, prs[1])).toEqual(['Parse the command line']);
    expect(prs[1].messages).toEqual(['Merge pull request #7 from dev/cli', 'Parse the command line']);
  });

  test('landed by squash, #7 keeps only its own commit', async () => {
    const { repo, prs } = await stacked('stacked-squash', async (r) => {
      await r.run('merge', '-q', '--squash', 'cli');
      await r.run('commit', '-q', '-m', 'Parse the command line (#7)');
    });
    expect(prs.map((pr) => [pr.number, pr.landing])).toEqual([
      [6, 'squash'],
      [7, 'squash'],
    ]);
    expect(await ownSubjects(repo, prs[1])).toEqual(['Parse the command line']);
  });
});

describe('a PR squashed under a subject that does not name it', () => {
  // #8 is squashed after main moved on (and it merged main in), its subject edited to drop "(#8)"; #9
  // never landed; #10 and #11 carry one patch, which lands once: nothing says which PR it was.
  test("is found by its patch, with its own commits; a PR whose patch is not on the branch, or is two PRs', is not", async () => {
    const repo = new ScratchRepo(join(root, 'squash-edited'));
    await mkdir(repo.path);
    await repo.run('init', '-q');
    await repo.commit('Initial import', {
      'src/app.py': 'def main():\n    pass\n',
      'src/quote.py': 'def quote(text):\n    return text\n',
    });
    const pull = async (number: number, branch: string, commits: [string, Record<string, string>][]) => {
      await repo.run('checkout', '-q', '-b', branch, 'main');
      for (const [message, files] of commits) await repo.commit(message, files);
      await repo.run('update-ref', `refs/pull/${number}/head`, 'HEAD');
      await repo.run('checkout', '-q', 'main');
    };
    await pull(8, 'quotes', [
      ['Quote double quotes', { 'src/quote.py': "def quote(text):\n    return text.replace('\"', '\\\\\"')\n" }],
      ['Test quoting', { 'tests/test_quote.py': 'from src.quote import quote\n' }],
    ]);
    await pull(9, 'abandoned', [['Try another parser', { 'src/parse.py': 'def parse():\n    pass\n' }]]);
    await pull(10, 'twice-a', [['Add a version', { 'src/version.py': 'VERSION = "1"\n' }]]);
    await pull(11, 'twice-b', [['Add a version', { 'src/version.py': 'VERSION = "1"\n' }]]);
    await repo.commit('Start a main loop', { 'src/app.py': 'def main():\n    while True:\n        pass\n' });
    // #8 catches up with main before it lands: its change is reckoned from there, as its squash's is.
    await repo.run('checkout', '-q', 'quotes');
    await repo.run('merge', '-q', '--no-edit', 'main');
    await repo.run('update-ref', 'refs/pull/8/head', 'HEAD');
    await repo.run('checkout', '-q', 'main');
    for (const branch of ['quotes', 'twice-b']) {
      await repo.run('merge', '-q', '--squash', branch);
      await repo.run('commit', '-q', '-m', branch === 'quotes' ? 'Escape quotes when quoting' : 'Add a version');
    }
    const prs = await mineLocalRepo(repo.path);
    expect(prs.map((pr) => [pr.number, pr.landing, pr.title])).toEqual([[8, 'squash', 'Escape quotes when quoting']]);
    expect(prs[0].baseSha).toBe((await repo.run('rev-parse', 'HEAD~2')).trim());
    const own = await Promise.all(
      (prs[0].commitShas ?? []).map(async (sha) => (await repo.run('log', '-1', '--format=%s', sha)).trim()),
    );
    expect(own).toEqual(['Quote double quotes', 'Test quoting', "Merge branch 'main' into quotes"]);
    expect(prs[0].files.map((f) => f.path).sort()).toEqual(['src/quote.py', 'tests/test_quote.py']);
  });
});

describe('paths that are not repositories', () => {
  test('a plain directory gives NotAGitRepositoryError with a clear message', async () => {
    const plain = join(root, 'plain');
    await mkdir(plain);
    const failure = mineLocalRepo(plain);
    await expect(failure).rejects.toBeInstanceOf(NotAGitRepositoryError);
    await expect(failure).rejects.toBeInstanceOf(MiningError);
    await expect(failure).rejects.toThrow(`not a git repository: ${plain}`);
  });

  test('a missing path and a folder inside a repository are not repositories either', async () => {
    await expect(mineLocalRepo(join(root, 'missing'))).rejects.toThrow(/^not a git repository: /);
    await expect(mineLocalRepo(join(demo, 'tally'))).rejects.toBeInstanceOf(NotAGitRepositoryError);
  });
});
