import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../../src/git';
import { gitPatch } from '../../src/mining/landings/patch';
import type { Chain, PullRequest } from '../../src/schemas';
import { changedFiles } from '../../test/support/mining';
import { must, type Release } from './release';

/**
 * A local repository whose history is a project's releases, as if each release after the first had
 * landed as a PR: the first release is the root commit on `main`; each next one is a branch's one
 * commit (`refs/pull/N/head`) merged into `main` by a merge commit, both dated at its publication
 * (undated releases a day apart, ending today). Every file the registry ships is committed, ignored or
 * not: the release is what was published. Returns the repository and the chain of its N PRs, each PR
 * depending on the one before (consecutive releases).
 */
export async function releaseChain(
  repoName: string,
  releases: Release[],
  dir: string,
): Promise<{ repo: string; chain: Chain }> {
  const repo = join(dir, 'repo');
  await mkdir(repo, { recursive: true });
  await git(repo, ['init', '-q', '-b', 'main']);
  const dates = releases.map(
    (r, i) => r.date ?? new Date(Date.now() - (releases.length - 1 - i) * 86_400_000).toISOString(),
  );
  const as = (date: string) => ({
    GIT_AUTHOR_NAME: 'chainsmith',
    GIT_AUTHOR_EMAIL: 'chainsmith@localhost',
    GIT_COMMITTER_NAME: 'chainsmith',
    GIT_COMMITTER_EMAIL: 'chainsmith@localhost',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  });
  const take = async (release: Release) => {
    await must('bash', ['-c', 'find "$1" -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +', 'clear', repo]);
    // A release's own `.git` (rare in an archive) would land in the repository's. The files become the
    // runner's own: an archive's owner (kept where root unpacks it) given to the repository's top
    // directory makes git refuse it as of dubious ownership.
    await must('bash', [
      '-c',
      'tar -C "$1" --exclude=./.git -cf - . | tar -C "$2" --no-same-owner -xf -',
      'copy',
      release.dir,
      repo,
    ]);
    // Every file hashed anew: a changed file of the same size and times as the one before it (archives keep
    // their files' times; the deleted file's inode may come back) would pass for unchanged in the index.
    await git(repo, ['read-tree', '--empty']);
    await git(repo, ['add', '-A', '-f', '.']);
  };
  await take(releases[0]);
  await git(repo, ['commit', '-q', '--allow-empty', '-m', `Release ${releases[0].version}`], { env: as(dates[0]) });
  const prs: PullRequest[] = [];
  for (let i = 1; i < releases.length; i++) {
    const r = releases[i];
    const base = (await git(repo, ['rev-parse', 'HEAD'])).trim();
    await git(repo, ['checkout', '-q', '-b', `release/${r.version}`]);
    await take(r);
    await git(repo, ['commit', '-q', '--allow-empty', '-m', `Release ${r.version}`], { env: as(dates[i]) });
    const head = (await git(repo, ['rev-parse', 'HEAD'])).trim();
    await git(repo, ['checkout', '-q', 'main']);
    const title = `Merge pull request #${i} from release/${r.version}`;
    // A release replaces the tree: the merge takes the head's tree whole (a file the release dropped is gone).
    const merge = (
      await git(repo, ['commit-tree', `${head}^{tree}`, '-p', base, '-p', head, '-m', title], { env: as(dates[i]) })
    ).trim();
    await git(repo, ['reset', '-q', '--hard', merge]);
    await git(repo, ['update-ref', `refs/pull/${i}/head`, head]);
    prs.push({
      number: i,
      title: `Release ${r.version}`,
      body: `Everything between ${releases[i - 1].version} and ${r.version}.`,
      messages: [title, `Release ${r.version}`],
      author: 'chainsmith',
      mergedAt: dates[i],
      landing: 'merge',
      baseSha: base,
      mergeSha: merge,
      headSha: head,
      files: await changedFiles(repo, base, merge),
      patch: await gitPatch(repo, base, merge),
    });
  }
  return {
    repo,
    chain: {
      id: `${repoName}#releases`,
      repo: { name: repoName, path: repo },
      prs,
      edges: prs.slice(1).map((p, i) => ({
        from: p.number,
        to: prs[i].number,
        kind: 'follow-up' as const,
        evidence: 'consecutive releases',
        confidence: 1,
      })),
    },
  };
}
