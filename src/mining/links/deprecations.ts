import type { Edge, PullRequestRecord } from '../../schemas';
import { git } from '../../git';
import { blamedLines } from './blame-lines';
import { writtenBy, type BlameContext } from './blame-context';
import { diffLines } from './diff-lines';
import type { DiffText } from './line-text';

/** A line that marks something deprecated, in any language's idiom (warnings, attributes, doc tags, macros). */
const DEPRECATION = /deprecat/i;
/** Go's marker, the one deprecation a comment makes: `// Deprecated: use X`. */
const MARKER_COMMENT = /^\s*(\/\/|#|\*)\s*Deprecated:/;
/** B says it takes something out. */
const REMOVAL = /\b(remov(e|es|ed|ing|al)|drop(s|ped|ping)?|delet(e|es|ed|ing)|clean(s|ed|ing)? up)\b/i;
/** Removing or rewriting what a PR deprecated is the next step of its plan, whenever it comes. */
const DEPRECATION_CONFIDENCE = 0.8;
/**
 * A PR that takes out the deprecations of more PRs than this is a removal sweep (a major release's
 * cleanup): each of those deprecations is only its occasion.
 */
const MAX_SOURCES = 3;

/** B's own words say it removes something deprecated: inside a refactor with its own purpose, such lines go by the way. */
function speaksOfDeprecation(pr: PullRequestRecord): boolean {
  return (
    [pr.title, pr.body, ...pr.messages].some((text) => DEPRECATION.test(text)) &&
    [pr.title, pr.body, ...pr.messages].some((text) => REMOVAL.test(text))
  );
}

/** A diff's deprecation lines, added minus removed. */
function netDeprecations(diff: string): number {
  let net = 0;
  for (const { sign, text } of diffLines(diff)) if (DEPRECATION.test(text)) net += sign === '+' ? 1 : -1;
  return net;
}

/** B (`from`) removes deprecation lines that A (`to`) wrote: B carries out A's deprecation. */
function deprecationEdge(from: number, to: number, lines: number): Edge {
  return {
    from,
    to,
    kind: 'follow-up',
    evidence: `#${from} removes ${lines} deprecation line${lines === 1 ? '' : 's'} that #${to} wrote`,
    confidence: DEPRECATION_CONFIDENCE,
    strength: 'weak',
    strengthWhy: `deprecate → remove: #${from} removes what #${to} deprecated`,
    source: { field: 'files', start: 0, end: 0 },
  };
}

/**
 * Deprecations B removes, blamed with no window: what a PR deprecates is removed a major version
 * later, which no recency window would reach. A line counts when B's words speak of removing a
 * deprecation, B removes more deprecation lines than it adds, the line is code (or Go's
 * `Deprecated:` marker, not a docstring's note), B does not put it back elsewhere, and A's own diff
 * wrote it while deprecating more than it removed.
 */
export async function deprecationEdges(
  ctx: BlameContext,
  pr: PullRequestRecord,
  text: DiffText,
  diff: string,
  comments: (path: string) => Promise<boolean[]>,
): Promise<Edge[]> {
  if (!speaksOfDeprecation(pr) || netDeprecations(diff) >= 0) return [];
  const found = new Map<string, number[]>();
  for (const { path, sign, text: line, oldLine } of diffLines(diff)) {
    if (sign === '-' && path !== undefined && DEPRECATION.test(line) && !text.keeps(line))
      found.set(path, [...(found.get(path) ?? []), oldLine]);
  }
  const counts = new Map<number, number>();
  for (const [path, numbers] of found) {
    const marks = await comments(path);
    const wanted = numbers.filter((line) => !marks[line]);
    const args = [
      'blame',
      '--porcelain',
      '-w',
      `--ignore-revs-file=${ctx.ignoreFile}`,
      ...numbers.flatMap((line) => ['-L', `${line},+1`]),
      pr.baseSha,
      '--',
      path,
    ];
    for (const line of blamedLines(await git(ctx.clone, args).catch(() => ''))) {
      if (!wanted.includes(line.line) && !MARKER_COMMENT.test(line.text)) continue;
      const number = ctx.owner.get(line.sha);
      const earlier = (ctx.byNumber.get(number ?? -1)?.mergedAt ?? '') <= pr.mergedAt;
      if (
        number === undefined ||
        number === pr.number ||
        !earlier ||
        ctx.ignored.has(line.sha) ||
        !(await writtenBy(ctx, number, line))
      )
        continue;
      counts.set(number, (counts.get(number) ?? 0) + 1);
    }
  }
  if (counts.size > MAX_SOURCES) return [];
  const edges: Edge[] = [];
  for (const [number, n] of counts) {
    const a = ctx.byNumber.get(number) as PullRequestRecord;
    const diffOfA = await git(ctx.clone, ['diff', '-U0', '--no-color', '--no-ext-diff', a.baseSha, a.mergeSha]).catch(
      () => '',
    );
    if (netDeprecations(diffOfA) > 0) edges.push(deprecationEdge(pr.number, number, n));
  }
  return edges;
}
