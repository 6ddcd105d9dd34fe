import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Edge, FileKind, PullRequestRecord } from '../schemas';
import { corroboration, introduced } from './corroboration';
import { addsDeprecations, deprecationEdge, deprecationLines, speaksOfDeprecation } from './deprecations';
import { diffLines } from './diff-lines';
import { git } from '../git';
import { isSweep, isVersionRelease, subjects, sweepCommits, sweepTopic } from './sweeps';

export interface CodeHistoryOptions {
  /** How long before B's merge a PR's lines count as recent; older lines are nobody's. */
  windowDays?: number;
  /**
   * Pairs ("B->A") where B's text names A: no coincidence to guard against, so A's lines count at
   * any age.
   */
  named?: ReadonlySet<string>;
  /** git processes at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * A year: fixes of a feature often come a release or two later. Measured on both labelled
 * repositories, 365 days found more real links than 180 and no more false ones once words and
 * sweeps were read right.
 */
export const DEFAULT_WINDOW_DAYS = 365;
/**
 * Commit dates of a PR's own commits can be far older than its merge: blame looks back this much
 * further, and the window is then applied to merge dates.
 */
const COMMIT_AGE_MARGIN_DAYS = 365;
/** Rewriting every line a PR touched is strong evidence, but code alone never says why: below the words. */
const BASE_CONFIDENCE = 0.3;
const SHARE_WEIGHT = 0.5;
/** The share of B's changed lines from which what the words say counts in full. */
const FULL_BONUS_SHARE = 0.3;
/** Code history with the best words around it is still below what the words alone say. */
const MAX_CONFIDENCE = 0.9;
/** B names the topic of the sweep whose lines it changes: as telling as naming the same identifier. */
const SAME_SWEEP_BONUS = 0.15;
/**
 * B rewrites much of what A added: B revisits A's work itself, not a line of it in passing. Counted
 * only from this many lines (one line of a one-line PR is any edit's) and this share of A's added
 * code, and only where B was opened after A (PR numbers follow creation), so that B's author could
 * have seen A's code.
 */
const REWORK_WEIGHT = 0.2;
const REWORK_MIN_LINES = 5;
const REWORK_MIN_SHARE = 0.25;
/** Diffs beyond this many old-side lines are reformatting or moves: their blame says little. */
const MAX_OLD_LINES = 400;

/** A version release's bump lines: whoever wrote the old version string is no cause of the release. */
const VERSION_LINE = /version|\b\d+\.\d+\.\d+\b/i;

/**
 * Old-side line ranges a diff deletes or modifies, by path (from `git diff -U0`), leaving out the
 * deleted lines that match `skip`.
 */
function oldRanges(diff: string, skip?: RegExp): { ranges: Map<string, [number, number][]>; added: number; removed: number } {
  const ranges = new Map<string, [number, number][]>();
  let added = 0;
  let removed = 0;
  for (const { path, sign, text, oldLine } of diffLines(diff)) {
    if (sign === '+') added += 1;
    else if (path !== undefined) {
      removed += 1;
      if (skip?.test(text)) continue;
      const spans = ranges.get(path) ?? [];
      const last = spans[spans.length - 1];
      if (last && last[0] + last[1] === oldLine) last[1] += 1;
      else spans.push([oldLine, 1]);
      ranges.set(path, spans);
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

const pathsOf = (pr: PullRequestRecord, kind: FileKind) => pr.files.filter((file) => file.kind === kind && !file.binary).map((file) => file.path);
const codePaths = (pr: PullRequestRecord) => pathsOf(pr, 'code');

/**
 * What B is blamed over: its code, the tests rewritten by a PR that changes behaviour being only
 * rewritten for its own reasons. A PR that changes no code is about its tests: fixing or extending
 * one is working on whoever's test that is.
 */
function blamedKind(pr: PullRequestRecord): FileKind {
  return codePaths(pr).length > 0 ? 'code' : 'test';
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

/**
 * Code-history links: PR B changes lines that PR A wrote within `windowDays` before B merged
 * (`git blame` of B's base over the lines B deletes or modifies in code, or in tests for a PR that
 * changes no code). The
 * confidence grows with the share of B's changed lines that A wrote, and with the share of A's added
 * lines that B rewrites.
 */
export async function codeHistoryEdges(
  clone: string,
  all: readonly PullRequestRecord[],
  examined: readonly PullRequestRecord[],
  opts: CodeHistoryOptions = {},
): Promise<Edge[]> {
  const owner = new Map<string, number>();
  for (const pr of all) for (const sha of [pr.mergeSha, ...(pr.commitShas ?? [])]) if (!owner.has(sha)) owner.set(sha, pr.number);
  const byNumber = new Map(all.map((pr) => [pr.number, pr]));
  const windowMs = (opts.windowDays ?? DEFAULT_WINDOW_DAYS) * 86_400_000;
  // Blame sees through sweeps (reformatting, renames, typing, releases) to whoever wrote the lines,
  // as `git blame --ignore-revs-file` does for formatting commits.
  const folder = await mkdtemp(join(tmpdir(), 'chainsmith-blame-'));
  const ignoreFile = join(folder, 'ignore-revs');
  const ignored = new Set(all.flatMap(sweepCommits));
  await writeFile(ignoreFile, [...ignored].join('\n') + '\n');
  const edges: Edge[] = [];
  let done = 0;
  try {
    const context = { clone, owner, byNumber, windowMs, ignoreFile, ignored, all, named: opts.named ?? new Set<string>() };
    await pool(examined.filter((pr) => !isSweep(pr) || isVersionRelease(pr)), opts.concurrency ?? 2, async (pr) => {
      // A version release is blamed too: its bump lines are a release commit's, which blame passes
      // by, and what else it changes is a fix landed with the release.
      const paths = pathsOf(pr, blamedKind(pr)).filter((path) => pr.files.some((file) => file.path === path && file.status !== 'added'));
      if (paths.length > 0) edges.push(...(await edgesOf(context, pr, paths)));
      opts.onProgress?.(++done, examined.length);
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  return edges.sort((a, b) => a.from - b.from || a.to - b.to);
}

interface BlameContext {
  clone: string;
  owner: Map<string, number>;
  byNumber: Map<number, PullRequestRecord>;
  windowMs: number;
  ignoreFile: string;
  /** Lines blame cannot pass through a sweep stay the sweep's: they are nobody's. */
  ignored: ReadonlySet<string>;
  all: readonly PullRequestRecord[];
  named: ReadonlySet<string>;
}

async function edgesOf(ctx: BlameContext, pr: PullRequestRecord, paths: string[]): Promise<Edge[]> {
  const { clone, owner, byNumber, windowMs } = ctx;
  const diff = await git(clone, ['diff', '-U0', '--no-color', '--no-renames', '--no-ext-diff', pr.baseSha, pr.mergeSha, '--', ...paths]).catch(() => '');
  const { ranges, removed } = oldRanges(diff, isVersionRelease(pr) ? VERSION_LINE : undefined);
  const deprecations = await deprecationEdges(ctx, pr, diff);
  // Everything B changed of the blamed kind counts, new files included: one line of A among a new module is little.
  const kind = blamedKind(pr);
  const changed = pr.files.filter((file) => file.kind === kind).reduce((sum, file) => sum + file.additions + file.deletions, 0);
  if (removed === 0 || removed > MAX_OLD_LINES) return deprecations;
  const merged = Date.parse(pr.mergedAt);
  const namesOld = [...ctx.named].some((pair) => pair.startsWith(`${pr.number}->`));
  const since = namesOld ? [] : [`--since=${new Date(merged - windowMs - COMMIT_AGE_MARGIN_DAYS * 86_400_000).toISOString()}`];
  const recent = (number: number) => {
    const at = Date.parse(byNumber.get(number)?.mergedAt ?? '');
    return at <= merged && (at >= merged - windowMs || ctx.named.has(`${pr.number}->${number}`));
  };
  // A PR that speaks of a sweep's topic ("fix typing") and changes lines that sweep wrote repairs the
  // sweep's own work: for it, blame stops at sweeps of that topic instead of looking through them.
  const topics = new Set(subjects(pr).map(sweepTopic).filter((topic): topic is number => topic !== undefined));
  const sameTopic = (number: number) => topics.size > 0 && subjects(byNumber.get(number) as PullRequestRecord).some((subject) => topics.has(sweepTopic(subject) ?? -1));
  const repairable = new Set([...ctx.ignored].filter((sha) => sameTopic(owner.get(sha) ?? -1)));
  const ignored = new Set([...ctx.ignored].filter((sha) => !repairable.has(sha)));
  const ignoreFile = repairable.size > 0 ? `${ctx.ignoreFile}-${pr.number}` : ctx.ignoreFile;
  if (repairable.size > 0) await writeFile(ignoreFile, [...ignored].join('\n') + '\n');
  const lines = new Map<number, number>();
  const repaired = new Set<number>();
  for (const [path, spans] of ranges) {
    const args = ['blame', '--porcelain', '-w', ...since, `--ignore-revs-file=${ignoreFile}`, ...spans.flatMap(([start, count]) => ['-L', `${start},+${count}`]), pr.baseSha, '--', path];
    for (const [sha, n] of blameCounts(await git(clone, args).catch(() => ''))) {
      const number = owner.get(sha);
      if (number === undefined || number === pr.number || !recent(number) || ignored.has(sha)) continue;
      // Tests are everyone's: only a PR opened after A (numbers follow creation) works on A's tests.
      if (kind === 'test' && number > pr.number) continue;
      lines.set(number, (lines.get(number) ?? 0) + n);
      if (repairable.has(sha)) repaired.add(number);
    }
  }
  const added = new Map<number, Set<string>>();
  for (const number of lines.keys()) {
    const a = byNumber.get(number) as PullRequestRecord;
    const diffOfA = await git(clone, ['diff', '-U0', '--no-color', '--no-ext-diff', a.baseSha, a.mergeSha, '--', ...paths]).catch(() => '');
    added.set(number, introduced(diffOfA));
  }
  const deprecated = new Map(deprecations.map((edge) => [edge.to, edge]));
  const history = [...lines].map(([number, n]) => {
    // A modified line is one removal and one addition; the share is of everything B changed.
    const share = Math.min(1, (2 * n) / Math.max(1, changed));
    const words = corroboration(pr, byNumber.get(number) as PullRequestRecord, ctx.all, added.get(number));
    const bonus = words.bonus + (repaired.has(number) ? SAME_SWEEP_BONUS : 0);
    const rework = reworkShare(pr, byNumber.get(number) as PullRequestRecord, n, kind);
    const why = `${words.why}${repaired.has(number) ? `; #${pr.number} speaks of the same sweep` : ''}${rework.why}`;
    return {
      from: pr.number,
      to: number,
      kind: 'code-history' as const,
      evidence: `#${pr.number} changes ${n} line${n === 1 ? '' : 's'} that #${number} wrote (${Math.round(share * 100)}% of its ${changed} changed lines of ${kindWord(kind)})${why}`,
      // Words lift a link only as far as the code history carries it: one shared line stays weak.
      confidence: Math.round(Math.min(MAX_CONFIDENCE, BASE_CONFIDENCE + SHARE_WEIGHT * share + REWORK_WEIGHT * rework.share + bonus * Math.min(1, share / FULL_BONUS_SHARE)) * 100) / 100,
      source: { field: 'files' as const, start: 0, end: 0 },
    };
  });
  // One edge per pair: the deprecation link where it is the stronger.
  const kept = history.map((edge) => (deprecated.get(edge.to)?.confidence ?? 0) > edge.confidence ? (deprecated.get(edge.to) as Edge) : edge);
  return [...kept, ...deprecations.filter((edge) => !lines.has(edge.to) && !repaired.has(edge.to))];
}

const kindWord = (kind: FileKind) => (kind === 'code' ? 'code' : 'tests');

/** The share of the lines A added (of the blamed kind) that B's `n` rewritten lines are, where it counts (see REWORK_WEIGHT). */
function reworkShare(b: PullRequestRecord, a: PullRequestRecord, n: number, kind: FileKind): { share: number; why: string } {
  const added = a.files.filter((file) => file.kind === kind).reduce((sum, file) => sum + file.additions, 0);
  // More lines blamed on A than A added (moved or generated code): the two counts say nothing together.
  const share = n <= added ? n / added : 0;
  if (n < REWORK_MIN_LINES || b.number < a.number || share < REWORK_MIN_SHARE) return { share: 0, why: '' };
  return { share, why: `; that is ${Math.round(share * 100)}% of the ${added} lines of ${kindWord(kind)} #${a.number} added` };
}

/**
 * Deprecation lines B deletes or rewrites, blamed with no window: what a PR deprecates is removed a
 * major version later, which no recency window would reach.
 */
async function deprecationEdges(ctx: BlameContext, pr: PullRequestRecord, diff: string): Promise<Edge[]> {
  const counts = new Map<number, number>();
  if (!speaksOfDeprecation(pr)) return [];
  for (const [path, numbers] of deprecationLines(diff)) {
    const args = ['blame', '--porcelain', '-w', `--ignore-revs-file=${ctx.ignoreFile}`, ...numbers.flatMap((line) => ['-L', `${line},+1`]), pr.baseSha, '--', path];
    for (const [sha, n] of blameCounts(await git(ctx.clone, args).catch(() => ''))) {
      const number = ctx.owner.get(sha);
      const earlier = (ctx.byNumber.get(number ?? -1)?.mergedAt ?? '') <= pr.mergedAt;
      if (number !== undefined && number !== pr.number && earlier && !ctx.ignored.has(sha)) counts.set(number, (counts.get(number) ?? 0) + n);
    }
  }
  const edges: Edge[] = [];
  for (const [number, n] of counts) {
    const a = ctx.byNumber.get(number) as PullRequestRecord;
    const diffOfA = await git(ctx.clone, ['diff', '-U0', '--no-color', '--no-ext-diff', a.baseSha, a.mergeSha, '--', ...codePaths(a)]).catch(() => '');
    if (addsDeprecations(diffOfA)) edges.push(deprecationEdge(pr.number, number, n));
  }
  return edges;
}
