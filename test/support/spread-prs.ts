import type { PullRequestRecord } from '../../src/schemas';

const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/**
 * `count` merged PRs that change both code and a test file, spread evenly over the last `years` of
 * the repository's merges: for each of `count` equal slices of that window, the unused PR merged
 * nearest the slice's middle. Bot PRs are left out. Fewer come back where fewer qualify.
 */
export function spreadPrs(prs: readonly PullRequestRecord[], count: number, years = 5): PullRequestRecord[] {
  const candidates = prs
    .filter((pr) => !pr.authorIsBot && !/\[bot\]$|^dependabot|^renovate/i.test(pr.author))
    .filter(
      (pr) =>
        pr.files.some((f) => f.kind === 'code') && pr.files.some((f) => f.kind === 'test' && f.status !== 'deleted'),
    )
    .map((pr) => ({ pr, at: Date.parse(pr.mergedAt) }))
    .filter(({ at }) => Number.isFinite(at));
  if (!candidates.length) return [];
  const end = Math.max(...candidates.map((c) => c.at));
  const start = end - years * YEAR_MS;
  const inWindow = candidates.filter((c) => c.at >= start);
  const chosen = new Set<number>();
  for (let i = 0; i < count && chosen.size < inWindow.length; i++) {
    const middle = start + ((i + 0.5) * (end - start)) / count;
    let best: (typeof inWindow)[number] | undefined;
    for (const c of inWindow) {
      if (chosen.has(c.pr.number)) continue;
      if (!best || Math.abs(c.at - middle) < Math.abs(best.at - middle)) best = c;
    }
    if (best) chosen.add(best.pr.number);
  }
  return inWindow
    .filter((c) => chosen.has(c.pr.number))
    .sort((a, b) => a.at - b.at)
    .map((c) => c.pr);
}
