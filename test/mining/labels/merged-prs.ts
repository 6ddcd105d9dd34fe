import { git } from '../../../src/git';

const PULL_HEAD = /^refs\/pull\/(\d+)\/head$/;
/** GitHub's squash and rebase-merge subjects end in "(#N)". */
const SQUASH_SUBJECT = /\(#(\d+)\)$/;

/**
 * Which PRs were merged into the default branch, decided without the miner: a PR whose
 * refs/pull/N/head is reachable from HEAD (merged, or merged into a branch that HEAD merged), or
 * whose number ends the subject of a commit HEAD reaches as "(#N)" (squashed: its head is not
 * reachable). Both need the PR's pull ref, so numbers of issues in subjects do not count.
 */
export async function mergedPullNumbers(clone: string): Promise<Set<number>> {
  const refs = await git(clone, ['for-each-ref', '--format=%(refname)', 'refs/pull/']);
  const all = new Set(refs.split('\n').map((ref) => PULL_HEAD.exec(ref)?.[1]).filter((n): n is string => n !== undefined).map(Number));
  const reachable = await git(clone, ['for-each-ref', '--merged=HEAD', '--format=%(refname)', 'refs/pull/']);
  const merged = new Set(reachable.split('\n').map((ref) => PULL_HEAD.exec(ref)?.[1]).filter((n): n is string => n !== undefined).map(Number));
  const subjects = await git(clone, ['log', '--format=%s', 'HEAD']);
  for (const subject of subjects.split('\n')) {
    const n = Number(SQUASH_SUBJECT.exec(subject.trim())?.[1]);
    if (all.has(n)) merged.add(n);
  }
  merged.delete(0);
  return merged;
}
