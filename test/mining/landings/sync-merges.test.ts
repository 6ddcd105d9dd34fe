// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitHubClient } from '../../../src/mining/landings/github/client';
import { mineGitHub } from '../../../src/mining/landings/github/mine-github';
import { logCommits } from '../../../src/mining/landings/commit-log';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { linkPullRequests } from '../../../src/mining/links/references';
import type { PullRequestRecord } from '../../../src/schemas';
import { FakeGitHub } from '../../support/fake-github';
import { fakeRepoFromClone } from '../github-fixtures';
import { ReleaseRepo } from '../release-branch';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-sync-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const edgesOf = (prs: PullRequestRecord[]) =>
  linkPullRequests(prs, { repo: 'acme/app' }).edges.map(({ from, to, kind }) => `${from}->${to} ${kind}`);
const subjects = (pr: PullRequestRecord | undefined) => pr?.messages.map((message) => message.split('\n')[0]);

/** Three PRs land on 3.1.x (merge, squash, merge); main then merges 3.1.x, by hand or through PR #20. */
async function releaseHistory(path: string, throughPr: boolean): Promise<ReleaseRepo> {
  const repo = await new ReleaseRepo(path).init();
  await repo.run('branch', '3.1.x');
  await repo.branch('feature-a', '3.1.x', ['Add the frobnicator']);
  await repo.mergePr(11, '3.1.x', 'feature-a', 'Add the frobnicator');
  await repo.branch('fix-b', '3.1.x', ['Fix regression from #11: frobnicator crash on empty input']);
  await repo.squashPr(12, '3.1.x', 'fix-b', 'Fix regression from #11: frobnicator crash on empty input');
  await repo.branch('docs-c', '3.1.x', ['Document the options', 'Tidy the docs']);
  await repo.mergePr(13, '3.1.x', 'docs-c', 'Document the options');
  await repo.run('checkout', '-q', '3.1.x');
  await repo.commit('release version 3.1.5', { 'CHANGES.md': '# changes\n\n3.1.5\n' });
  await repo.branch('main-work', 'main', ['Unrelated main work']);
  await repo.mergePr(14, 'main', 'main-work', 'Unrelated main work');
  if (throughPr) {
    await repo.run('checkout', '-q', '-b', 'merge-up', 'main');
    await repo.run('merge', '-q', '--no-ff', '-m', "Merge branch '3.1.x' into merge-up", '3.1.x');
    await repo.mergePr(20, 'main', 'merge-up', 'Merge 3.1.x into main');
  } else {
    await repo.syncMerge('main', '3.1.x');
  }
  await repo.run('checkout', '-q', 'main');
  return repo;
}

test('a PR rebased onto a release branch is found when main merges that branch, with its replayed commits', async () => {
  const repo = await new ReleaseRepo(join(root, 'rebased-side')).init();
  await repo.run('branch', '3.1.x');
  // Forked before the release branch moved on: the rebase replays its two commits onto the newer tip.
  await repo.branch('fix-d', '3.1.x', ['Guard the frobnicator', 'Test the guard']);
  await repo.run('checkout', '-q', '3.1.x');
  await repo.commit('release version 3.1.6', { 'CHANGES.md': '# changes\n\n3.1.6\n' });
  await repo.rebasePr(15, '3.1.x', 'fix-d');
  await repo.syncMerge('main', '3.1.x');
  const { prs } = await readLocalPullRequests(repo.path);
  const rebased = prs.find((pr) => pr.number === 15);
  expect(rebased).toMatchObject({
    landing: 'rebase',
    title: 'Guard the frobnicator',
    headSha: await repo.sha('refs/pull/15/head'),
  });
  expect(subjects(rebased)).toEqual(['Guard the frobnicator', 'Test the guard']);
  expect(rebased!.commitShas).toEqual([await repo.sha('3.1.x~1'), await repo.sha('3.1.x')]);
  expect(rebased!.baseSha).toBe(await repo.sha('3.1.x~2'));
  expect((await repo.run('log', '-1', '--format=%s', rebased!.baseSha)).trim()).toBe('release version 3.1.6');
});

test('a sync merge of three release-branch PRs gives each PR its own commits and no false links', async () => {
  const repo = await releaseHistory(join(root, 'sync'), false);
  const { prs } = await readLocalPullRequests(repo.path);
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  expect(prs.map((pr) => pr.number)).toEqual([11, 12, 13, 14]);
  expect(subjects(byNumber.get(11))).toEqual(['Merge pull request #11 from someone/feature-a', 'Add the frobnicator']);
  // A squash keeps the commits of its head ref, as on main.
  expect(subjects(byNumber.get(12))).toEqual([
    'Fix regression from #11: frobnicator crash on empty input (#12)',
    'Fix regression from #11: frobnicator crash on empty input',
  ]);
  expect(subjects(byNumber.get(13))).toEqual([
    'Merge pull request #13 from someone/docs-c',
    'Document the options',
    'Tidy the docs',
  ]);
  // Each is based where it landed on the release branch, not on main.
  expect(byNumber.get(12)?.baseSha).toBe(await repo.sha('3.1.x~2^1'));
  expect(byNumber.get(13)?.files.map((file) => file.path)).toEqual(['src/part3.py', 'src/part4.py']);
  expect(edgesOf(prs)).toEqual(['12->11 regression-of']);
});

test('a merge-up PR that swallows release-branch PRs: they are recorded on their own, and it keeps only its own text', async () => {
  const repo = await releaseHistory(join(root, 'merge-up'), true);
  const { prs } = await readLocalPullRequests(repo.path);
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  expect(prs.map((pr) => pr.number)).toEqual([11, 12, 13, 14, 20]);
  // The release commit and the merge-up's own merge are all that #20 brought of its own.
  expect(subjects(byNumber.get(20))).toEqual([
    'Merge pull request #20 from someone/merge-up',
    'release version 3.1.5',
    "Merge branch '3.1.x' into merge-up",
  ]);
  expect(byNumber.get(20)?.commitShas).toHaveLength(2);
  expect(edgesOf(prs)).toEqual(['12->11 regression-of']);
});

test('GitHub mode: PRs merged into the release branch come back through the merge-up PR that carried them', async () => {
  const repo = await releaseHistory(join(root, 'merge-up-api'), true);
  const fakeRepo = await fakeRepoFromClone('acme', 'app', repo.path);
  // As GitHub shows it: the release PRs have base 3.1.x, and the merge-up PR lists every commit it brought.
  for (const pull of fakeRepo.pulls) if (pull.number < 14) pull.baseRef = '3.1.x';
  const mergeUp = fakeRepo.pulls.find((pull) => pull.number === 20)!;
  const brought = await logCommits(repo.path, [mergeUp.headSha, `^${mergeUp.baseSha}`]);
  mergeUp.commits = brought.reverse().map((c) => ({ sha: c.sha, message: c.message, parents: c.parents }));
  expect(mergeUp.commits.map((c) => c.message.split('\n')[0])).toContain(
    'Fix regression from #11: frobnicator crash on empty input (#12)',
  );
  const fake = new FakeGitHub([fakeRepo], { token: 'secret' });
  const baseUrl = await fake.start();
  try {
    const client = createGitHubClient({ baseUrl, token: 'secret', secondMs: 5 });
    const mined = await mineGitHub({
      repo: 'acme/app',
      client,
      baseUrl,
      hasToken: true,
      cacheDir: join(root, 'cache'),
    });
    expect(mined.prs.map((pr) => pr.number).sort((a, b) => a - b)).toEqual([11, 12, 13, 14, 20]);
    expect(mined.dropped['other-base']).toBe(0);
    const twenty = mined.prs.find((pr) => pr.number === 20);
    expect(subjects(twenty)).toEqual([
      'Merge pull request #20 from someone/merge-up',
      'release version 3.1.5',
      "Merge branch '3.1.x' into merge-up",
    ]);
    expect(edgesOf(mined.prs)).toEqual(['12->11 regression-of']);
  } finally {
    await fake.stop();
  }
});
