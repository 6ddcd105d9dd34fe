import { COMPOUND_IDENTIFIER } from './code-words';

export interface IntentContext {
  /** Names the chain's patches add; withheld wherever they appear. */
  identifiers: Set<string>;
  /** Stage number of each PR in the chain, so "#4" can become "an earlier stage". */
  stageOf: Map<number, number>;
  /** Stage the text describes. */
  stage: number;
}

const WITHHELD = '…';

const FENCED = /```[\s\S]*?(```|$)/g;
const BACKTICKED = /`[^`\n]*`?/g;
/** name(...) with one level of nested parentheses: "median([1, 2])", "sorted(key=...)". */
const CALL_EXPRESSION = /\b[A-Za-z_][\w.]*\((?:[^()]|\([^()]*\))*\)/g;
const DOTTED_NAME = /\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+\b/g;
const REFERENCE = /(?:\b[\w.-]+\/[\w.-]+)?#(\d+)\b/g;

function escapeForRegExp(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function describeReference(number: number, context: IntentContext): string {
  const stage = context.stageOf.get(number);
  if (stage === undefined) return 'a related change';
  return stage < context.stage ? 'an earlier stage' : 'a later stage';
}

function tidy(text: string): string {
  return text
    .replace(/\(\s*(…\s*)*\)|\[\s*(…\s*)*\]/g, WITHHELD)
    .replace(/…(\s*[,/]?\s*…)+/g, WITHHELD)
    .replace(/\s+([,.;:!?])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Rewrites PR prose so that it says what and why but not the literal edit: code spans, calls,
 * dotted and compound names and names the patches add become "…", and "#N" becomes a stage.
 */
export function intentOnly(text: string, context: IntentContext): string {
  // References become placeholders first so that withheld names cannot eat into their wording.
  let result = text
    .replace(FENCED, WITHHELD)
    .replace(BACKTICKED, WITHHELD)
    .replace(CALL_EXPRESSION, WITHHELD)
    .replace(/\(\s*#(\d+)\s*\)/g, '')
    .replace(REFERENCE, (_match, number: string) => `\u0001${number}\u0001`)
    .replace(DOTTED_NAME, WITHHELD)
    .replace(COMPOUND_IDENTIFIER, WITHHELD);
  for (const name of context.identifiers) {
    result = result.replace(new RegExp(`(?<![\\w$])${escapeForRegExp(name)}(?![\\w$])`, 'g'), WITHHELD);
  }
  result = result.replace(/\u0001(\d+)\u0001/g, (_match, number: string) => describeReference(Number(number), context));
  return tidy(result);
}
