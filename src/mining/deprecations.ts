import type { Edge, PullRequestRecord } from '../schemas';
import { diffLines } from './diff-lines';

/** A line that marks something deprecated, in any language's idiom (warnings, attributes, doc tags, macros). */
const DEPRECATION = /deprecat/i;
/** Removing or rewriting what a PR deprecated is the next step of its plan, whenever it comes. */
const DEPRECATION_CONFIDENCE = 0.8;

/** Old-side line numbers, by path, of the deleted or modified lines of a `git diff -U0` that mark a deprecation. */
export function deprecationLines(diff: string): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const { path, sign, text, oldLine } of diffLines(diff)) {
    if (sign === '-' && path !== undefined && DEPRECATION.test(text)) found.set(path, [...(found.get(path) ?? []), oldLine]);
  }
  return found;
}

/** B's own words say it deals with a deprecation: inside a refactor with its own purpose, such lines go by the way. */
export function speaksOfDeprecation(pr: PullRequestRecord): boolean {
  return [pr.title, pr.body, ...pr.messages].some((text) => DEPRECATION.test(text));
}

/** A PR deprecates something when its diff adds more deprecation lines than it removes (rewording one is not deprecating). */
export function addsDeprecations(diff: string): boolean {
  let net = 0;
  for (const { sign, text } of diffLines(diff)) if (DEPRECATION.test(text)) net += sign === '+' ? 1 : -1;
  return net > 0;
}

/** B (`from`) deletes or rewrites deprecation lines that A (`to`) wrote: B carries out or corrects A's deprecation. */
export function deprecationEdge(from: number, to: number, lines: number): Edge {
  return {
    from,
    to,
    kind: 'follow-up',
    evidence: `#${from} removes or changes ${lines} deprecation line${lines === 1 ? '' : 's'} that #${to} wrote`,
    confidence: DEPRECATION_CONFIDENCE,
    source: { field: 'files', start: 0, end: 0 },
  };
}
