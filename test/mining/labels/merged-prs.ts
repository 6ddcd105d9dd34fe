import { git } from '../../../src/git';

const PULL_HEAD = /^refs\/pull\/(\d+)\/head$/;
/** GitHub's squash and rebase-merge subjects end in "(#N)". */
const SQUASH_SUBJECT = /\(#(\d+)\)$/;

/** What a rebase keeps of a commit: author e-mail, author date, subject. */
const KEPT = '%ae%x1f%aI%x1f%s';

/**
 * Which PRs were merged into the default branch, decided without the miner: a PR whose
 * refs/pull/N/head is reachable from HEAD (merged, or merged into a branch that HEAD merged), whose
 * number ends the subject of a commit HEAD reaches as "(#N)" (squashed: its head is not reachable),
 * or whose head commit's author, author date and subject are those of a commit HEAD reaches (GitHub's
 * rebase button replays the commits under new ids). All need the PR's pull ref, so numbers of issues
 * in subjects do not count.
 */
export async function mergedPullNumbers(clone: string): Promise<Set<number>> {
  const refs = await git(clone, ['for-each-ref', '--format=%(refname)', 'refs/pull/']);
  const all = new Set(
    refs
      .split('\n')
      .map((ref) => PULL_HEAD.exec(ref)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number),
  );
  const reachable = await git(clone, ['for-each-ref', '--merged=HEAD', '--format=%(refname)', 'refs/pull/']);
  const merged = new Set(
    reachable
      .split('\n')
      .map((ref) => PULL_HEAD.exec(ref)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number),
  );
  const subjects = await git(clone, ['log', '--format=%s', 'HEAD']);
  for (const subject of subjects.split('\n')) {
    const n = Number(SQUASH_SUBJECT.exec(subject.trim())?.[1]);
    if (all.has(n)) merged.add(n);
  }
  const kept = new Set((await git(clone, ['log', `--format=${KEPT}`, 'HEAD'])).split('\n'));
  const heads = await git(clone, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/pull/']);
  const numbersOf = new Map<string, number[]>();
  for (const [sha, ref] of heads.split('\n').map((line) => line.split(' '))) {
    const n = PULL_HEAD.exec(ref ?? '')?.[1];
    if (n !== undefined) numbersOf.set(sha, [...(numbersOf.get(sha) ?? []), Number(n)]);
  }
  const headKeys = await git(clone, ['log', '--no-walk=unsorted', '--stdin', `--format=%H%x1f${KEPT}`], {
    input: [...numbersOf.keys()].join('\n') + '\n',
  });
  for (const line of headKeys.split('\n').filter(Boolean)) {
    const at = line.indexOf('\x1f');
    if (kept.has(line.slice(at + 1))) for (const n of numbersOf.get(line.slice(0, at)) ?? []) merged.add(n);
  }
  merged.delete(0);
  return merged;
}
