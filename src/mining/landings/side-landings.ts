import { splitMessage, type LoggedCommit } from './commit-log';
import { recognizeLanding, type Landing } from './landing';
import type { RebaseLanding } from './rebase-landings';

/** How far back a PR landed by rebase or fast-forward on a side branch is looked for. */
const MAX_SIDE_COMMITS = 100;

/** A PR that landed on another branch (a release branch) and reached the mined one through a merge. */
interface SideLanding {
  number: number;
  landing: Landing | undefined;
  /** The commit that landed it on its branch: a merge, a squash, or the PR's head. */
  commit: LoggedCommit;
  base: string;
  head?: string;
  own: LoggedCommit[];
}

/**
 * Splits what one merge brought onto the mined branch among the PRs that had landed on the merged
 * branch, so that a "Merge branch '3.1.x'" or a merge-up PR does not hand every release-branch commit
 * to one PR. Each PR keeps the commits its own landing brought: for a merge, what its second parent
 * reaches and its first parent does not; for a squash, the squash commit (and its head ref's
 * commits); for a PR known only by refs/pull/N/head, the run of unclaimed commits ending at the head.
 * Returns those PRs oldest first and the commits left to the merge itself (release commits and the
 * like). `landed` gains the numbers found.
 */
export function splitSideLandings(
  brought: readonly LoggedCommit[],
  landed: Set<number>,
  unlandedHeads: ReadonlyMap<string, number[]>,
  headCommits: (landing: Landing) => { head?: string; own: LoggedCommit[] },
  /**
   * PRs rebased onto the side branch: `find` (rebase-landings.ts) looks along its first-parent line
   * from `tip` (the merge's second parent); `claimed` commits are taken already.
   */
  rebasedOnto?: { tip: string; find: (line: LoggedCommit[], claimed: ReadonlySet<string>) => RebaseLanding[] },
): { sides: SideLanding[]; rest: LoggedCommit[] } {
  const within = new Map(brought.map((commit) => [commit.sha, commit]));
  const claimed = new Set<string>();
  const sides: SideLanding[] = [];
  // Commits within `brought` reachable from `start` (itself included), skipping claimed ones.
  const reach = (starts: string[], stopAtClaimed: boolean, limit = Infinity): LoggedCommit[] => {
    const seen = new Set<string>();
    const found: LoggedCommit[] = [];
    const stack = [...starts];
    while (stack.length > 0 && found.length < limit) {
      const sha = stack.pop() as string;
      const commit = within.get(sha);
      if (!commit || seen.has(sha) || (stopAtClaimed && claimed.has(sha))) continue;
      seen.add(sha);
      found.push(commit);
      stack.push(...commit.parents);
    }
    return found;
  };
  const order = new Map(brought.map((commit, index) => [commit.sha, index]));
  const oldestFirst = (commits: LoggedCommit[]) =>
    commits.sort((a, b) => (order.get(a.sha) ?? 0) - (order.get(b.sha) ?? 0));

  for (const commit of brought) {
    const landing = recognizeLanding(splitMessage(commit.message).subject, commit.parents.length);
    if (landing && !landed.has(landing.number) && commit.parents.length > 0) {
      landed.add(landing.number);
      let own: LoggedCommit[];
      let head: string | undefined;
      if (landing.landing === 'merge') {
        const before = new Set(reach([commit.parents[0]], false).map((c) => c.sha));
        own = oldestFirst(reach(commit.parents.slice(1), true).filter((c) => !before.has(c.sha)));
        head = commit.parents[1];
      } else {
        ({ head, own } = headCommits(landing));
      }
      for (const c of [commit, ...own]) claimed.add(c.sha);
      sides.push({ number: landing.number, landing, commit, base: commit.parents[0], head, own });
    }
  }
  // Heads second: a PR branch's head can be older than the landing of the PR it was forked from.
  for (const commit of brought) {
    for (const number of unlandedHeads.get(commit.sha) ?? []) {
      if (landed.has(number)) continue;
      landed.add(number);
      // Rebased or fast-forwarded onto the side branch: its commits end at its head.
      const own = oldestFirst(reach([commit.sha], true, MAX_SIDE_COMMITS));
      for (const c of own) claimed.add(c.sha);
      const base = own[0]?.parents[0];
      if (base !== undefined) sides.push({ number, landing: undefined, commit, base, head: commit.sha, own });
    }
  }
  // Rebased last: a head of its own on the side branch says more than matching commits do.
  if (rebasedOnto && within.has(rebasedOnto.tip)) {
    const line: LoggedCommit[] = [];
    for (let c = within.get(rebasedOnto.tip); c; c = within.get(c.parents[0] ?? '')) line.push(c);
    line.reverse();
    for (const { number, head, start, end } of rebasedOnto.find(line, claimed)) {
      if (landed.has(number)) continue;
      landed.add(number);
      const own = line.slice(start, end + 1);
      for (const c of own) claimed.add(c.sha);
      sides.push({
        number,
        landing: { number, landing: 'rebase' },
        commit: line[end],
        base: own[0].parents[0],
        head,
        own,
      });
    }
  }
  sides.sort((a, b) => (order.get(a.commit.sha) ?? 0) - (order.get(b.commit.sha) ?? 0));
  return { sides, rest: brought.filter((commit) => !claimed.has(commit.sha)) };
}
