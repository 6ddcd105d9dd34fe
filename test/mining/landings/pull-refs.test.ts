// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../../src/git';
import { readLocalPullRequests, type LocalMineResult } from '../../../src/mining/landings/local-git';
import { linkPullRequests } from '../../../src/mining/links/references';
import { HistoryBuilder } from '../history-builder';

let root: string;
let path: string;
let mined: LocalMineResult;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-pull-refs-'));
  path = join(root, 'repo');
  await new HistoryBuilder({ 'app/core.py': 'X = 0\n' })
    .pr({
      number: 50,
      title: 'Merged by hand',
      landing: 'hand-merge',
      pullRef: true,
      commits: [{ message: 'Teach core to count', files: { 'app/core.py': 'X = 1\n' } }],
    })
    .direct({ message: 'Release 1.0', files: { 'CHANGES.md': '1.0\n' }, author: 'Release Bot' })
    .pr({
      number: 51,
      title: 'Fast-forwarded',
      landing: 'fast-forward',
      pullRef: true,
      author: 'Grace Hopper',
      commits: [
        { message: 'Count twice\n\nBuilds on #50.', files: { 'app/core.py': 'X = 2\n' } },
        { message: 'Test counting twice', files: { 'tests/test_core.py': 'def test(): pass\n' } },
      ],
    })
    .openPr({ number: 52, title: 'Never merged', commits: [{ message: 'An idea', files: { 'app/idea.py': '' } }] })
    // Rebased: its two commits are on main under new ids; only their author, dates and messages tell.
    .pr({
      number: 54,
      title: 'Rebased',
      landing: 'rebase',
      pullRef: true,
      author: 'Alan Turing',
      commits: [
        { message: 'Count to four', files: { 'app/four.py': 'FOUR = 4\n' } },
        { message: 'Test counting to four', files: { 'tests/test_four.py': 'def test(): pass\n' } },
      ],
    })
    // The same subject by someone else, later: not one of #54's commits.
    .direct({ message: 'Count to four', files: { 'NOTES.md': 'same subject, other author\n' } })
    // The squash message says nothing; the PR's own commits (behind its ref) name #51, #52 and #49.
    .pr({
      number: 53,
      title: 'Tidy counting',
      body: 'Tidy counting.',
      landing: 'squash',
      pullRef: true,
      commits: [
        { message: 'Rename X\n\nFollow-up to #51.', files: { 'app/core.py': 'COUNT = 2\n' } },
        { message: 'Mention #52 and #49', files: { 'app/core.py': 'COUNT = 3\n' } },
      ],
    })
    // The maintainer replayed only its last commit: the first was dropped, as hand rebases do.
    .pr({
      number: 55,
      title: 'Partly replayed',
      landing: 'rebase',
      replayed: 1,
      pullRef: true,
      author: 'Barbara Liskov',
      commits: [
        { message: 'Try a counter', files: { 'app/counter.py': 'N = 0\n' } },
        { message: 'Count with the counter', files: { 'app/counter.py': 'N = 1\n', 'app/core.py': 'COUNT = 4\n' } },
      ],
    })
    .write(path);
  mined = await readLocalPullRequests(path);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('refs/pull/N/head finds PRs landed by hand: merged locally or fast-forwarded', async () => {
  const [fifty, fiftyOne] = mined.prs;
  expect(mined.prs.map((pr) => [pr.number, pr.landing])).toEqual([
    [50, 'manual'],
    [51, 'manual'],
    [54, 'rebase'],
    [53, 'squash'],
    [55, 'rebase'],
  ]);
  expect(fifty.title).toBe('Teach core to count');
  expect(fifty.baseSha).toBe((await git(path, ['rev-parse', `${fifty.mergeSha}^1`])).trim());
  // The fast-forward's commits are its run of same-author commits; the release commit before is not one.
  expect(fiftyOne.commitShas).toHaveLength(2);
  expect(fiftyOne.mergeSha).toBe(fiftyOne.headSha);
  expect(fiftyOne.files.map((file) => file.path)).toEqual(['app/core.py', 'tests/test_core.py']);
  expect((await git(path, ['log', '-1', '--format=%s', fiftyOne.baseSha])).trim()).toBe('Release 1.0');
});

test("a PR landed by GitHub's rebase button is found by its replayed commits: author, author date and message", async () => {
  const rebased = mined.prs.find((pr) => pr.number === 54)!;
  const onMain = (await git(path, ['log', '--format=%H|%an|%s', '--first-parent', 'main'])).trim().split('\n');
  const shaOf = (subject: string) => onMain.find((line) => line.endsWith(`|Alan Turing|${subject}`))!.split('|')[0];
  expect(rebased.commitShas).toEqual([shaOf('Count to four'), shaOf('Test counting to four')]);
  expect(rebased.mergeSha).toBe(shaOf('Test counting to four'));
  expect(rebased.baseSha).toBe((await git(path, ['rev-parse', `${shaOf('Count to four')}^1`])).trim());
  expect(rebased.headSha).toBe((await git(path, ['rev-parse', 'refs/pull/54/head'])).trim());
  expect(rebased.headSha).not.toBe(rebased.mergeSha);
  expect([rebased.title, rebased.messages]).toEqual(['Count to four', ['Count to four', 'Test counting to four']]);
  expect(rebased.files.map((file) => file.path)).toEqual(['app/four.py', 'tests/test_four.py']);
});

test('a PR whose last commits alone were replayed onto the branch landed, with those commits as its own', async () => {
  const partly = mined.prs.find((pr) => pr.number === 55)!;
  const onMain = (await git(path, ['log', '--format=%H|%an|%s', '--first-parent', 'main'])).trim().split('\n');
  expect(onMain.filter((line) => line.includes('|Barbara Liskov|')).map((line) => line.split('|')[2])).toEqual([
    'Count with the counter',
  ]);
  const replayed = onMain.find((line) => line.endsWith('|Barbara Liskov|Count with the counter'))!.split('|')[0];
  expect(partly.commitShas).toEqual([replayed]);
  expect(partly.mergeSha).toBe(replayed);
  expect(partly.baseSha).toBe((await git(path, ['rev-parse', `${replayed}^1`])).trim());
  expect(partly.files.map((file) => file.path).sort()).toEqual(['app/core.py', 'app/counter.py']);
});

test("a squashed PR's own commits are read from its ref", () => {
  const squashed = mined.prs.find((pr) => pr.number === 53)!;
  expect(squashed.messages).toEqual([
    'Tidy counting (#53)\n\nTidy counting.',
    'Rename X\n\nFollow-up to #51.',
    'Mention #52 and #49',
  ]);
});

test('with refs, a number is a merged PR, an unmerged PR or an issue', () => {
  expect([...mined.pullNumbers].sort()).toEqual([50, 51, 52, 53, 54, 55]);
  const { edges, tally } = linkPullRequests(mined.prs, { pullNumbers: mined.pullNumbers });
  expect(edges.map(({ from, to, kind }) => [from, to, kind])).toEqual([
    [51, 50, 'follow-up'],
    [53, 51, 'follow-up'],
  ]);
  expect(tally).toMatchObject({ pr: 2, unmergedPr: 1, issue: 1 });
});

test('without refs, PRs landed by hand stay invisible', async () => {
  await git(path, ['for-each-ref', '--format=delete %(refname)', 'refs/pull/'], {}).then((commands) =>
    git(path, ['update-ref', '--stdin'], { input: commands }),
  );
  const bare = await readLocalPullRequests(path);
  expect(bare.prs.map((pr) => pr.number)).toEqual([53]);
  expect(bare.prs[0].messages).toEqual(['Tidy counting (#53)\n\nTidy counting.']);
  expect(bare.pullNumbers.size).toBe(0);
});
