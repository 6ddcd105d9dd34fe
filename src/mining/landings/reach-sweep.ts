import type { LoggedCommit } from './commit-log';

/**
 * Walks a branch's first-parent line oldest first while tracking every commit reachable so far,
 * so that what a merge brought in (reachable from its other parents, not from its first) costs one
 * visit per commit for the whole history instead of one `git log base..tip` per PR.
 */
export class ReachSweep {
  private readonly reached = new Set<string>();

  constructor(
    private readonly commits: ReadonlyMap<string, LoggedCommit>,
    /** Position in `git log` output (newest first), to hand commits back oldest first. */
    private readonly position: ReadonlyMap<string, number>,
  ) {}

  /** Marks `commit` reached and returns, oldest first, the commits its other parents brought in. */
  advance(commit: LoggedCommit): LoggedCommit[] {
    const brought = this.collect(commit.parents.slice(1), true);
    this.reached.add(commit.sha);
    return brought;
  }

  /** Commits reachable from `sha` that the sweep has not reached yet, oldest first; marks nothing. */
  unreachedFrom(sha: string): LoggedCommit[] {
    return this.collect([sha], false);
  }

  has(sha: string): boolean {
    return this.reached.has(sha);
  }

  private collect(starts: string[], mark: boolean): LoggedCommit[] {
    const seen = mark ? this.reached : new Set<string>();
    const found: LoggedCommit[] = [];
    const stack = starts.filter((sha) => !this.reached.has(sha));
    for (const sha of stack) seen.add(sha);
    while (stack.length > 0) {
      const commit = this.commits.get(stack.pop() as string);
      // A shallow clone's boundary commits have parents git never sent: the walk ends there.
      if (!commit) continue;
      found.push(commit);
      for (const parent of commit.parents) {
        if (!seen.has(parent) && !this.reached.has(parent)) {
          seen.add(parent);
          stack.push(parent);
        }
      }
    }
    const at = (c: LoggedCommit) => this.position.get(c.sha) ?? 0;
    return found.sort((a, b) => at(b) - at(a));
  }
}
