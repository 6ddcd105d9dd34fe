import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Edge, FileKind, PullRequestRecord, Strength } from '../../schemas';
import { git } from '../../git';
import { blamedLines } from './blame-lines';
import { writtenBy, type BlameContext } from './blame-context';
import { commentLines, isProse } from './comment-lines';
import type { Copies } from './copies';
import { corroboration, introduced, REGRESSION_BONUS, saysFix } from './corroboration';
import { deprecationEdges } from './deprecations';
import { diffLines } from './diff-lines';
import { editKey, repeatedEdits } from './repeated-edits';
import { DiffText, isTrivial, squeeze } from './line-text';
import { thinFollowUp } from './strength';
import { isSweep, isVersionRelease, subjects, sweepCommits, sweepTopic } from './sweeps';

export interface CodeHistoryOptions {
  /** How long before B's merge a PR's lines count (default DEFAULT_WINDOW_DAYS); older lines are nobody's. */
  windowDays?: number;
  /**
   * Pairs ("B->A") where B's text names A: no coincidence to guard against, so A's lines count at
   * any age.
   */
  named?: ReadonlySet<string>;
  /** Backports and branch syncs (copies.ts): a copy's lines are its original's, a sync's nobody's. */
  copies?: Copies;
  /** git processes at once. */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * A year. Lines of any age were tried (session 15): recall rose on every repository, but on the three
 * held out, chain precision fell from 0.80-0.89 to 0.69-0.77, and on cJSON (tuning) link precision
 * fell from 1.0 to 0.87; old lines a later PR touches in passing are more often no dependency.
 */
export const DEFAULT_WINDOW_DAYS = 365;
/** The blame window in milliseconds (--blame-days, or a year). */
export const windowMs = (days?: number): number => (days ?? DEFAULT_WINDOW_DAYS) * 86_400_000;
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
 * The share of B's change that is A's is taken over at least this many meaningful lines, so a
 * one-line PR does not score as if all of it were about A (URLs, imports, spacing and comments are
 * not counted at all). Measured on the tuning repositories, a floor of four lines lost four real
 * one-line fixes of the line an earlier PR wrote and kept out no false link: at three, such a
 * one-liner links, below a PR rewriting more of A.
 */
const MIN_CHANGED_LINES = 3;
/** Comment and docstring lines say what code does, not how: they count this much of a code line. */
const DOC_WEIGHT = 0.25;
/**
 * An overlap in comments or docstrings alone stays below a link unless B's words back it: B says an
 * earlier change broke something, or calls itself a fix (B naming A is a mention, which the pipeline
 * joins to the code history).
 */
const DOCS_ONLY_CAP = 0.45;
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
/**
 * A PR that puts back elsewhere most of what it removes moves code (a file split, helpers moved to
 * their own module): a sweep, unless it says it fixes something (a check moved before the use).
 */
const MOVED_SHARE = 0.8;
const MOVED_MIN_LINES = 3;
/** A version release's bump lines: whoever wrote the old version string is no cause of the release. */
const VERSION_LINE = /version|\b\d+\.\d+\.\d+\b/i;

const pathsOf = (pr: PullRequestRecord, kind: FileKind) =>
  pr.files.filter((file) => file.kind === kind && !file.binary).map((file) => file.path);

/**
 * What B is blamed over: its code, the tests rewritten by a PR that changes behaviour being only
 * rewritten for its own reasons. A PR that changes no code is about its tests, and one that changes
 * neither about its docs or build files: fixing or extending one is working on whoever's that is.
 */
function blamedKind(pr: PullRequestRecord): FileKind {
  if (pathsOf(pr, 'code').length > 0) return 'code';
  return pathsOf(pr, 'test').length > 0 ? 'test' : 'other';
}

async function pool<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/**
 * Code-history links: PR B changes lines that PR A wrote within `windowDays` before B merged
 * (`git blame` of B's base over the lines B deletes or modifies in code, or in tests for a PR that
 * changes no code). A blamed line counts only if A's own diff added it (whitespace ignored) and did
 * not take the same text out elsewhere: blame that passes a move, re-wrap or catch-up merge lands on
 * a PR that never wrote the line. Nor does a line B edits the way it edits many others (a call or a
 * qualifier replaced throughout, repeated-edits.ts): that is a sweep inside B. The confidence grows with the share of B's changed lines that A
 * wrote, and with the share of A's added lines that B rewrites; comments and docstrings count little.
 */
export async function codeHistoryEdges(
  clone: string,
  all: readonly PullRequestRecord[],
  examined: readonly PullRequestRecord[],
  opts: CodeHistoryOptions = {},
): Promise<Edge[]> {
  const copyOf = opts.copies?.copyOf ?? new Map<number, number>();
  const syncs = opts.copies?.syncs ?? new Set<number>();
  const owner = new Map<string, number>();
  for (const pr of all) {
    for (const sha of [pr.mergeSha, ...(pr.commitShas ?? [])])
      if (!owner.has(sha)) owner.set(sha, copyOf.get(pr.number) ?? pr.number);
  }
  const byNumber = new Map(all.map((pr) => [pr.number, pr]));
  // Blame sees through sweeps (reformatting, renames, typing, releases) and branch syncs to whoever
  // wrote the lines, as `git blame --ignore-revs-file` does for formatting commits.
  const folder = await mkdtemp(join(tmpdir(), 'chainsmith-blame-'));
  const ignoreFile = join(folder, 'ignore-revs');
  const ignored = new Set([
    ...all.flatMap(sweepCommits),
    ...all.filter((pr) => syncs.has(pr.number)).map((pr) => pr.mergeSha),
  ]);
  await writeFile(ignoreFile, [...ignored].join('\n') + '\n');
  const diffs = new Map<number, Promise<DiffText>>();
  const wrote = (number: number) => {
    let text = diffs.get(number);
    if (!text) {
      const pr = byNumber.get(number) as PullRequestRecord;
      text = git(clone, ['diff', '-U0', '--no-color', '--no-renames', '--no-ext-diff', pr.baseSha, pr.mergeSha])
        .catch(() => '')
        .then((diff) => new DiffText(diff));
      diffs.set(number, text);
    }
    return text;
  };
  const edges: Edge[] = [];
  let done = 0;
  try {
    const context: BlameContext = {
      clone,
      owner,
      byNumber,
      windowMs: windowMs(opts.windowDays),
      ignoreFile,
      ignored,
      all,
      named: opts.named ?? new Set<string>(),
      wrote,
    };
    // Sweeps are no endpoint: their lines are nobody's, and what they change is theirs. A version
    // release is blamed all the same, its bump lines left out: what else it changes is a fix landed
    // with the release.
    const blamed = examined.filter(
      (pr) => (!isSweep(pr) || isVersionRelease(pr)) && !copyOf.has(pr.number) && !syncs.has(pr.number),
    );
    await pool(blamed, opts.concurrency ?? 2, async (pr) => {
      const paths = pathsOf(pr, blamedKind(pr)).filter((path) =>
        pr.files.some((file) => file.path === path && file.status !== 'added'),
      );
      if (paths.length > 0) edges.push(...(await edgesOf(context, pr, paths)));
      opts.onProgress?.(++done, blamed.length);
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  return edges.sort((a, b) => a.from - b.from || a.to - b.to);
}

/** B's diff read for blame: the old-side ranges it really changes, and how many meaningful lines it changes. */
interface Change {
  ranges: Map<string, [number, number][]>;
  /** Meaningful lines added or removed in the blamed files, moves left out. */
  changed: number;
  /** Meaningful lines removed, and of those put back elsewhere. */
  removed: number;
  moved: number;
  text: DiffText;
  diff: string;
}

function readChange(diff: string, paths: ReadonlySet<string>, skip?: RegExp): Change {
  const text = new DiffText(diff);
  const ranges = new Map<string, [number, number][]>();
  let [changed, removed, moved] = [0, 0, 0];
  // An edit B repeats on many lines is a sweep inside B: those lines are not about their writers.
  const repeated = repeatedEdits(diff);
  const seen = new Map<string, number>();
  for (const { path, newPath, sign, text: line, oldLine, hunk } of diffLines(diff)) {
    const index = seen.get(`${hunk}${sign}`) ?? 0;
    seen.set(`${hunk}${sign}`, index + 1);
    if (isTrivial(line) || skip?.test(line)) continue;
    if (sign === '+') {
      if (newPath !== undefined && paths.has(newPath) && !text.removed.has(squeeze(line))) changed += 1;
      continue;
    }
    if (path === undefined || !paths.has(path)) continue;
    removed += 1;
    // Put back re-indented or re-wrapped: B did not change it. Put back elsewhere, B moved it: a
    // move as part of a change (a check moved before the use) is a change, many moves are a sweep.
    if (text.keepsInPlace(hunk, line)) continue;
    if (text.keeps(line)) moved += 1;
    changed += 1;
    // Part of B's change all the same: the share of it that is A's is smaller.
    if (repeated.has(editKey(hunk, sign, index))) continue;
    const spans = ranges.get(path) ?? [];
    const last = spans[spans.length - 1];
    if (last && last[0] + last[1] === oldLine) last[1] += 1;
    else spans.push([oldLine, 1]);
    ranges.set(path, spans);
  }
  return { ranges, changed, removed, moved, text, diff };
}

/** A's lines among those B changes, code and comments apart. */
interface Overlap {
  code: number;
  doc: number;
}

async function edgesOf(ctx: BlameContext, pr: PullRequestRecord, paths: string[]): Promise<Edge[]> {
  const { clone, owner, byNumber, windowMs } = ctx;
  const kind = blamedKind(pr);
  const diff = await git(clone, [
    'diff',
    '-U0',
    '--no-color',
    '--no-renames',
    '--no-ext-diff',
    pr.baseSha,
    pr.mergeSha,
  ]).catch(() => '');
  const change = readChange(
    diff,
    new Set(paths.concat(pathsOf(pr, kind))),
    isVersionRelease(pr) ? VERSION_LINE : undefined,
  );
  if (change.removed >= MOVED_MIN_LINES && change.moved >= MOVED_SHARE * change.removed && !saysFix(pr)) return [];
  const deprecations = await deprecationEdges(ctx, pr, change.text, diff, (path) => fileComments(ctx, pr, path));
  const oldLines = [...change.ranges.values()].flat().reduce((sum, [, count]) => sum + count, 0);
  if (oldLines === 0 || oldLines > MAX_OLD_LINES) return deprecations;
  const merged = Date.parse(pr.mergedAt);
  const namesOld = [...ctx.named].some((pair) => pair.startsWith(`${pr.number}->`));
  const since = namesOld
    ? []
    : [`--since=${new Date(merged - windowMs - COMMIT_AGE_MARGIN_DAYS * 86_400_000).toISOString()}`];
  const recent = (number: number) => {
    const at = Date.parse(byNumber.get(number)?.mergedAt ?? '');
    return at <= merged && (at >= merged - windowMs || ctx.named.has(`${pr.number}->${number}`));
  };
  // A PR that speaks of a sweep's topic ("fix typing") and changes lines that sweep wrote repairs the
  // sweep's own work: for it, blame stops at sweeps of that topic instead of looking through them.
  const topics = new Set(
    subjects(pr)
      .map(sweepTopic)
      .filter((topic): topic is number => topic !== undefined),
  );
  const sameTopic = (number: number) =>
    topics.size > 0 &&
    subjects(byNumber.get(number) as PullRequestRecord).some((subject) => topics.has(sweepTopic(subject) ?? -1));
  const repairable = new Set([...ctx.ignored].filter((sha) => sameTopic(owner.get(sha) ?? -1)));
  const ignored = new Set([...ctx.ignored].filter((sha) => !repairable.has(sha)));
  const ignoreFile = repairable.size > 0 ? `${ctx.ignoreFile}-${pr.number}` : ctx.ignoreFile;
  if (repairable.size > 0) await writeFile(ignoreFile, [...ignored].join('\n') + '\n');
  const overlaps = new Map<number, Overlap>();
  const repaired = new Set<number>();
  for (const [path, spans] of change.ranges) {
    const args = [
      'blame',
      '--porcelain',
      '-w',
      ...since,
      `--ignore-revs-file=${ignoreFile}`,
      ...spans.flatMap(([start, count]) => ['-L', `${start},+${count}`]),
      pr.baseSha,
      '--',
      path,
    ];
    const blamed = blamedLines(await git(clone, args).catch(() => ''));
    const comments = blamed.length > 0 ? await fileComments(ctx, pr, path) : [];
    for (const line of blamed) {
      const number = owner.get(line.sha);
      if (number === undefined || number === pr.number || !recent(number) || ignored.has(line.sha)) continue;
      // Tests and docs are everyone's: only a PR opened after A (numbers follow creation) works on A's.
      if (kind !== 'code' && number > pr.number) continue;
      if (!(await writtenBy(ctx, number, line))) continue;
      const overlap = overlaps.get(number) ?? { code: 0, doc: 0 };
      overlap[comments[line.line] ? 'doc' : 'code'] += 1;
      overlaps.set(number, overlap);
      if (repairable.has(line.sha)) repaired.add(number);
    }
  }
  const history = await Promise.all(
    [...overlaps].map(([number, overlap]) =>
      scoreEdge(ctx, pr, number, overlap, change.changed, kind, paths, repaired.has(number)),
    ),
  );
  // One edge per pair: removing what A deprecated says what B does to A's lines better than the blame
  // does (a weak deprecate → remove link), however many of A's lines go with it.
  const deprecated = new Map(deprecations.map((edge) => [edge.to, edge]));
  const kept = history.map((edge) => {
    const removal = deprecated.get(edge.to);
    return removal ? { ...removal, confidence: Math.max(removal.confidence, edge.confidence) } : edge;
  });
  return [...kept, ...deprecations.filter((edge) => !overlaps.has(edge.to))];
}

/** Comment and docstring lines of a file at B's base; every line of prose (README, docs, changelog). */
async function fileComments(ctx: BlameContext, pr: PullRequestRecord, path: string): Promise<boolean[]> {
  const content = await git(ctx.clone, ['show', `${pr.baseSha}:${path}`]).catch(() => '');
  return isProse(path)
    ? content
        .split('\n')
        .map(() => true)
        .concat(true)
    : commentLines(path, content);
}

async function scoreEdge(
  ctx: BlameContext,
  pr: PullRequestRecord,
  number: number,
  overlap: Overlap,
  changed: number,
  kind: FileKind,
  paths: string[],
  repaired: boolean,
): Promise<Edge> {
  const a = ctx.byNumber.get(number) as PullRequestRecord;
  const diffOfA = await git(ctx.clone, [
    'diff',
    '-U0',
    '--no-color',
    '--no-ext-diff',
    a.baseSha,
    a.mergeSha,
    '--',
    ...paths,
  ]).catch(() => '');
  const words = corroboration(pr, a, ctx.all, introduced(diffOfA));
  // Comments and docstrings beside code B changes are part of that change; alone, they count little.
  // In a PR that changes only docs, prose is its substance: it counts in full, below a link unless words back it.
  const n = overlap.code + (overlap.code > 0 || kind === 'other' ? 1 : DOC_WEIGHT) * overlap.doc;
  // A modified line is one removal and one addition; the share is of everything B changed, and of no less than a few lines.
  const share = Math.min(1, (2 * n) / Math.max(MIN_CHANGED_LINES, changed));
  const bonus = words.bonus + (repaired ? SAME_SWEEP_BONUS : 0);
  const rework = reworkShare(pr, a, overlap.code + overlap.doc, kind);
  const docsOnly = overlap.code === 0;
  const lines = overlap.code + overlap.doc;
  const why = `${words.why}${repaired ? `; #${pr.number} speaks of the same sweep` : ''}${rework.why}`;
  const raw = Math.min(
    MAX_CONFIDENCE,
    BASE_CONFIDENCE +
      SHARE_WEIGHT * share +
      REWORK_WEIGHT * rework.share +
      bonus * Math.min(1, share / FULL_BONUS_SHARE),
  );
  // Words lift a link only as far as the code history carries it: one shared line stays weak.
  const backed = words.bonus >= REGRESSION_BONUS || saysFix(pr);
  const confidence = Math.round((docsOnly && !backed ? Math.min(DOCS_ONLY_CAP, raw) : raw) * 100) / 100;
  const [strength, strengthWhy] = historyStrength(pr, number, kind, docsOnly, overlap.code);
  return {
    from: pr.number,
    to: number,
    kind: 'code-history',
    evidence: `#${pr.number} changes ${lines} line${lines === 1 ? '' : 's'} that #${number} wrote${overlap.doc > 0 ? ` (${overlap.doc} of them comments or docstrings)` : ''} (${Math.round(share * 100)}% of its ${changed} changed lines of ${kindWord(kind)})${why}`,
    confidence,
    strength,
    strengthWhy,
    source: { field: 'files', start: 0, end: 0 },
  };
}

/** Strong where B fixes or changes code A wrote; weak where it is only A's docs, comments or tests, text, or one line without a fix. */
function historyStrength(
  pr: PullRequestRecord,
  number: number,
  kind: FileKind,
  docsOnly: boolean,
  codeLines: number,
): [Strength, string] {
  if (kind === 'other') return ['weak', `#${pr.number} changes only docs or build files, #${number}'s among them`];
  if (docsOnly) return ['weak', `#${pr.number} changes only comments or docstrings #${number} wrote`];
  if (kind === 'test') return ['weak', `#${pr.number} changes only tests, #${number}'s among them`];
  const thin = thinFollowUp(pr);
  if (thin) return ['weak', `#${pr.number} ${thin}`];
  if (saysFix(pr)) return ['strong', `#${pr.number} fixes code #${number} wrote`];
  // One line of A's code changed, and no word of a fix: a small follow-up, real but thin.
  if (codeLines < 2) return ['weak', `#${pr.number} changes one line of code #${number} wrote`];
  return ['strong', `#${pr.number} changes code #${number} wrote`];
}

const kindWord = (kind: FileKind) => ({ code: 'code', test: 'tests', other: 'docs or build files' })[kind];

/** The share of the lines A added (of the blamed kind) that B's `n` rewritten lines are, where it counts (see REWORK_WEIGHT). */
function reworkShare(
  b: PullRequestRecord,
  a: PullRequestRecord,
  n: number,
  kind: FileKind,
): { share: number; why: string } {
  const added = a.files.filter((file) => file.kind === kind).reduce((sum, file) => sum + file.additions, 0);
  // More lines blamed on A than A added (moved or generated code): the two counts say nothing together.
  const share = n <= added ? n / added : 0;
  if (n < REWORK_MIN_LINES || b.number < a.number || share < REWORK_MIN_SHARE) return { share: 0, why: '' };
  return {
    share,
    why: `; that is ${Math.round(share * 100)}% of the ${added} lines of ${kindWord(kind)} #${a.number} added`,
  };
}
