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
const keyOf = (commit: LoggedCommit) =>
  `${commit.authorEmail}\x1f${commit.authoredAt}\x1f${splitMessage(commit.message).subject}`;

/**
 * The pull refs whose head the mined branch does not reach, by their head commit's key: the only PRs
 * a rebase can have landed. Built once per mine; every line is then matched against it.
 */
export class RebaseCandidates {
  private readonly byKey = new Map<string, { number: number; head: LoggedCommit }[]>();
  /** A branch commit that is some PR's own head lands that PR (fast-forwarded), whatever else matches it. */
  readonly headShas: ReadonlySet<string>;

  constructor(
    heads: ReadonlyMap<number, string>,
    readonly bySha: ReadonlyMap<string, LoggedCommit>,
    /** The commits the mined branch reaches (through any parent): where a PR's own commits end. */
    readonly onBranch: ReadonlySet<string>,
  ) {
    this.headShas = new Set(heads.values());
    for (const [number, sha] of heads) {
      const head = bySha.get(sha);
      if (!head || onBranch.has(sha)) continue;
      const key = keyOf(head);
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), { number, head }]);
    }
  }

  headsKeyed(key: string): readonly { number: number; head: LoggedCommit }[] {
    return this.byKey.get(key) ?? [];
  }
}

/**
 * The PRs whose refs/pull/N/head is not on the branch but whose commits are, replayed one for one
 * onto `line` (the branch's first-parent line, or a side branch's that a merge brought), oldest first:
 * a rebase gives each commit a new id and committer date but keeps its author, author date and
 * message. A PR counts when its head commit matches a commit of the line that lands nothing else and
 * is no PR's head itself (a fast-forwarded PR whose commits another PR carried too). Its own commits
 * are the run of its commits, walked back from the head, that match consecutive commits of the line:
 * back to where it was forked, or to the first one the line lacks, since maintainers replay a PR's
 * last commits alone, drop or reword an early one, or cherry-pick the head of a branch based on
 * history the branch never had. A key that two commits of the line share proves nothing, and the walk
 * stops at a merge of the PR's own (a rebase drops it). Lower numbers are matched first. `landed`
 * (numbers) and `claimed` (branch commits that land a PR) are left as they are.
 */
export function findRebaseLandings(
  line: readonly LoggedCommit[],
  candidates: RebaseCandidates,
  landed: ReadonlySet<number>,
  claimed: ReadonlySet<string>,
): RebaseLanding[] {
  const at = new Map<string, number>();
  const shared = new Set<string>();
  line.forEach((commit, index) => {
    if (commit.parents.length !== 1 || claimed.has(commit.sha) || candidates.headShas.has(commit.sha)) return;
    const key = keyOf(commit);
    if (at.has(key)) shared.add(key);
    at.set(key, index);
  });
  for (const key of shared) at.delete(key);
  const matches = [...at].flatMap(([key, end]) => candidates.headsKeyed(key).map((c) => ({ ...c, end })));
  const taken = new Set<number>();
  const found: RebaseLanding[] = [];
  for (const { number, head, end } of matches.sort((a, b) => a.number - b.number)) {
    if (landed.has(number)) continue;
    let index = end;
    let commit: LoggedCommit | undefined = head;
    let start: number | undefined;
    while (commit && commit.parents.length === 1 && at.get(keyOf(commit)) === index && !taken.has(index)) {
      start = index;
      if (candidates.onBranch.has(commit.parents[0])) break;
      commit = candidates.bySha.get(commit.parents[0]);
      index -= 1;
    }
    if (start === undefined) continue;
    for (let i = start; i <= end; i++) taken.add(i);
    found.push({ number, head: head.sha, start, end });
  }
  return found;
}
