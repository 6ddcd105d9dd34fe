import { splitMessage, type LoggedCommit } from './commit-log';

/** A PR landed by GitHub's "Rebase and merge": its commits replayed onto the branch, `start`..`end` of the first-parent line. */
export interface RebaseLanding {
  number: number;
  head: string;
  /** Indices into the first-parent line, oldest first. */
  start: number;
  end: number;
}

/** What a rebase keeps of a commit: its author, its author date and its subject. */
const keyOf = (commit: LoggedCommit) => `${commit.authorEmail}\x1f${commit.authoredAt}\x1f${splitMessage(commit.message).subject}`;

/**
 * The PRs whose refs/pull/N/head is not on the branch but whose commits are, replayed one for one
 * onto `mainline` (the branch's first-parent line, or a side branch's that a merge brought): a rebase
 * gives each commit a new id and committer date but keeps its author, author date and message. A PR
 * counts when its head's commits, walked back to one whose parent the branch reaches (where the PR
 * was forked, wherever that is), match consecutive commits of the line, none of which lands anything else or is a
 * PR's head itself (a fast-forwarded PR whose commits another PR carried too). A key
 * that two commits of the branch share proves nothing, and a PR with a merge of its own is not
 * matched (a rebase drops it). `landed` (numbers) and `claimed` (branch commits that land a PR)
 * are left as they are.
 */
export function findRebaseLandings(
  mainline: readonly LoggedCommit[],
  bySha: ReadonlyMap<string, LoggedCommit>,
  heads: ReadonlyMap<number, string>,
  landed: ReadonlySet<number>,
  claimed: ReadonlySet<string>,
  /** The commits the mined branch reaches (through any parent): where a PR's own commits end. */
  onBranch: ReadonlySet<string>,
): RebaseLanding[] {
  // A branch commit that is some PR's own head lands that PR (fast-forwarded), whatever else matches it.
  const headShas = new Set(heads.values());
  const at = new Map<string, number>();
  const shared = new Set<string>();
  mainline.forEach((commit, index) => {
    if (commit.parents.length !== 1 || claimed.has(commit.sha) || headShas.has(commit.sha)) return;
    const key = keyOf(commit);
    if (at.has(key)) shared.add(key);
    at.set(key, index);
  });
  for (const key of shared) at.delete(key);
  const taken = new Set<number>();
  const found: RebaseLanding[] = [];
  for (const [number, head] of [...heads].sort(([a], [b]) => a - b)) {
    const headCommit = bySha.get(head);
    if (landed.has(number) || onBranch.has(head) || !headCommit) continue;
    const end = at.get(keyOf(headCommit));
    if (end === undefined) continue;
    let index = end;
    let commit: LoggedCommit | undefined = headCommit;
    let start: number | undefined;
    while (commit && commit.parents.length === 1 && at.get(keyOf(commit)) === index && !taken.has(index)) {
      if (onBranch.has(commit.parents[0])) {
        start = index;
        break;
      }
      commit = bySha.get(commit.parents[0]);
      index -= 1;
    }
    if (start === undefined) continue;
    for (let i = start; i <= end; i++) taken.add(i);
    found.push({ number, head, start, end });
  }
  return found;
}
