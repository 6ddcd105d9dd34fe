import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { git } from '../../src/git';
import { gitPatch } from '../../src/mining/landings/patch';
import { packageRoot } from '../../src/paths';
import type { Chain, PullRequest } from '../../src/schemas';
import { changedFiles } from './mining';

/** Bundles of real repositories with their pull refs (../shared/repos next to the project). */
export const SHARED_REPOS = resolve(packageRoot(), '..', 'shared', 'repos');

export function bundlePath(name: string): string | undefined {
  const path = join(SHARED_REPOS, `${name}.bundle`);
  return existsSync(path) ? path : undefined;
}

/** A clone of the bundle `name` of ../shared/repos (cloneSource). */
export async function cloneBundle(name: string): Promise<string> {
  const bundle = bundlePath(name);
  if (!bundle) throw new Error(`no bundle ${name} in ${SHARED_REPOS}`);
  return cloneSource(name, bundle);
}

/**
 * A clone of `source` (a git bundle, or a git directory such as a snapshot's) with its
 * refs/pull/N/head refs, made once per machine and source under the temp directory (later runs reuse
 * it, so the environment images keyed on its history are reused too). It is named by what the source
 * holds (a bundle file's size and time, a git directory's refs), so a source replaced under the same
 * name is cloned anew; and made aside, then moved into place whole, since test files that run at once
 * may clone the same one.
 */
export async function cloneSource(name: string, source: string): Promise<string> {
  const info = await stat(source);
  const which = info.isDirectory()
    ? createHash('sha256')
        .update(await git(source, ['for-each-ref', '--format=%(objectname) %(refname)']))
        .digest('hex')
        .slice(0, 16)
    : `${info.size}-${Math.trunc(info.mtimeMs)}`;
  const dir = join(tmpdir(), 'chainsmith-real-repos', `${name}@${which}`);
  if (existsSync(dir)) return dir;
  const partial = `${dir}.partial-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await mkdir(partial, { recursive: true });
    await git(partial, ['clone', '-q', source, '.']);
    await git(partial, ['fetch', '-q', source, '+refs/pull/*:refs/pull/*']);
    // Onto a directory another clone put there first, the move fails: that one is as good.
    await rename(partial, dir).catch((err: Error) => {
      if (!existsSync(dir)) throw err;
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  return dir;
}

/**
 * A one-PR chain for refs/pull/N/head: its base is where the PR branched from `branch`, its merge the
 * commit that landed it there (a merge whose second parent is the PR's head) or, where it landed
 * otherwise, a merge of its head into that base made in the clone.
 */
export async function pullRequestChain(
  repoPath: string,
  repoName: string,
  number: number,
  branch: string,
): Promise<Chain> {
  const head = (await git(repoPath, ['rev-parse', `refs/pull/${number}/head`])).trim();
  const landed = (await git(repoPath, ['log', '--first-parent', '--merges', '--format=%H %P', branch]))
    .split('\n')
    .map((l) => l.split(' '))
    .find((p) => p[2] === head);
  let baseSha: string;
  let mergeSha: string;
  if (landed) [mergeSha, baseSha] = landed;
  else {
    baseSha = (await git(repoPath, ['merge-base', branch, head])).trim();
    mergeSha = (
      await git(
        repoPath,
        ['commit-tree', `${head}^{tree}`, '-p', baseSha, '-p', head, '-m', `Merge pull request #${number}`],
        { env: FIXED },
      )
    ).trim();
  }
  const subject = (await git(repoPath, ['log', '-1', '--format=%s', head])).trim();
  const pr: PullRequest = {
    number,
    title: subject,
    body: '',
    messages: [subject],
    author: 'someone',
    mergedAt: (await git(repoPath, ['log', '-1', '--format=%cI', mergeSha])).trim(),
    landing: landed ? 'merge' : 'manual',
    baseSha,
    mergeSha,
    headSha: head,
    files: await changedFiles(repoPath, baseSha, mergeSha),
    patch: await gitPatch(repoPath, baseSha, mergeSha),
  };
  return { id: `${repoName}#${number}`, repo: { name: repoName, path: repoPath }, prs: [pr], edges: [] };
}

const FIXED = {
  GIT_AUTHOR_NAME: 'chainsmith',
  GIT_AUTHOR_EMAIL: 'chainsmith@localhost',
  GIT_COMMITTER_NAME: 'chainsmith',
  GIT_COMMITTER_EMAIL: 'chainsmith@localhost',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};
