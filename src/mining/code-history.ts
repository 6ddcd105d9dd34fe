import type { Edge, PullRequestRecord } from '../schemas';
import { git } from './git';

export interface CodeHistoryOptions {
  /** How long before B's merge a PR's lines count as recent; older lines are nobody's. */
  windowDays?: number;
  /** git processes at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_WINDOW_DAYS = 90;
/** Rewriting every line a PR touched is strong evidence, but code alone never says why: below the words. */
const BASE_CONFIDENCE = 0.3;
const SHARE_WEIGHT = 0.5;
/** Diffs beyond this many old-side lines are reformatting or moves: their blame says little. */
const MAX_OLD_LINES = 400;

/** Old-side line ranges a diff deletes or modifies, by path (from `git diff -U0`). */
export function oldRanges(diff: string): { ranges: Map<string, [number, number][]>; added: number; removed: number } {
  const ranges = new Map<string, [number, number][]>();
  let path: string | undefined;
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('--- ')) path = line === '--- /dev/null' ? undefined : line.slice(6);
    else if (line.startsWith('@@') && path !== undefined) {
      const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
      if (!hunk) continue;
      const start = Number(hunk[1]);
      const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
      added += hunk[3] === undefined ? 1 : Number(hunk[3]);
      removed += count;
      if (count > 0) ranges.set(path, [...(ranges.get(path) ?? []), [start, count]]);
    }
  }
  return { ranges, added, removed };
}

/** Lines of `git blame --porcelain` per commit, leaving out lines older than --since (boundary). */
export function blameCounts(porcelain: string): Map<string, number> {
  const counts = new Map<string, number>();
  const boundary = new Set<string>();
  let current: string | undefined;
  for (const line of porcelain.split('\n')) {
    const header = /^([0-9a-f]{40}) \d+ \d+(?: (\d+))?$/.exec(line);
    if (header) {
      current = header[1];
      counts.set(current, (counts.get(current) ?? 0) + 1);
    } else if (line === 'boundary' && current) boundary.add(current);
  }
  for (const sha of boundary) counts.delete(sha);
  return counts;
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/**
 * Code-history links: PR B changes lines that PR A wrote within `windowDays` before B merged
 * (`git blame` of B's base over the lines B deletes or modifies in code and test files). The
 * confidence grows with the share of B's changed lines that A wrote.
 */
export async function codeHistoryEdges(
  clone: string,
  all: readonly PullRequestRecord[],
  examined: readonly PullRequestRecord[],
  opts: CodeHistoryOptions = {},
): Promise<Edge[]> {
  const owner = new Map<string, number>();
  for (const pr of all) for (const sha of [pr.mergeSha, ...(pr.commitShas ?? [])]) if (!owner.has(sha)) owner.set(sha, pr.number);
  const windowMs = (opts.windowDays ?? DEFAULT_WINDOW_DAYS) * 86_400_000;
  const edges: Edge[] = [];
  let done = 0;
  await pool([...examined], opts.concurrency ?? 2, async (pr) => {
    const paths = pr.files.filter((file) => file.kind !== 'other' && !file.binary && file.status !== 'added').map((file) => file.path);
    if (paths.length > 0) edges.push(...(await edgesOf(clone, pr, paths, owner, windowMs)));
    opts.onProgress?.(++done, examined.length);
  });
  return edges.sort((a, b) => a.from - b.from || a.to - b.to);
}

async function edgesOf(clone: string, pr: PullRequestRecord, paths: string[], owner: Map<string, number>, windowMs: number): Promise<Edge[]> {
  const diff = await git(clone, ['diff', '-U0', '--no-color', '--no-renames', '--no-ext-diff', pr.baseSha, pr.mergeSha, '--', ...paths]).catch(() => '');
  const { ranges, added, removed } = oldRanges(diff);
  if (removed === 0 || removed > MAX_OLD_LINES) return [];
  const since = new Date(Date.parse(pr.mergedAt) - windowMs).toISOString();
  const lines = new Map<number, number>();
  for (const [path, spans] of ranges) {
    const args = ['blame', '--porcelain', '-w', `--since=${since}`, ...spans.flatMap(([start, count]) => ['-L', `${start},+${count}`]), pr.baseSha, '--', path];
    const counts = blameCounts(await git(clone, args).catch(() => ''));
    for (const [sha, n] of counts) {
      const number = owner.get(sha);
      if (number !== undefined && number !== pr.number) lines.set(number, (lines.get(number) ?? 0) + n);
    }
  }
  return [...lines].map(([number, n]) => {
    // A modified line is one removal and one addition; the share is of everything B changed.
    const share = Math.min(1, (2 * n) / (added + removed));
    return {
      from: pr.number,
      to: number,
      kind: 'code-history' as const,
      evidence: `#${pr.number} changes ${n} line${n === 1 ? '' : 's'} that #${number} wrote (${Math.round(share * 100)}% of its ${added + removed} changed lines)`,
      confidence: Math.round((BASE_CONFIDENCE + SHARE_WEIGHT * share) * 100) / 100,
      source: { field: 'files' as const, start: 0, end: 0 },
    };
  });
}
