/**
 * Names a patch introduces or uses as code, read from its added lines. A query that repeats them
 * would hand the agent the literal edit, so they are withheld from intent-only text.
 */

const DEFINITION = /\b(?:def|class|function|const|let|var|type|interface|enum|struct|fn|func)\s+([A-Za-z_$][\w$]*)/g;
const CALL = /([A-Za-z_$][\w$]*)\(/g;
const KEYWORD_ARGUMENT = /[(,]\s*([A-Za-z_]\w*)\s*=(?!=)/g;
/** snake_case, camelCase and PascalCase compounds read as code wherever they appear. */
export const COMPOUND_IDENTIFIER = /\b(?:[A-Za-z][A-Za-z0-9]*_\w+|[a-z][a-z0-9]*[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b/g;

/** Keywords that look like calls ("if (", "not(") but are also ordinary English words. */
const KEYWORDS = new Set([
  'if',
  'elif',
  'else',
  'for',
  'while',
  'switch',
  'return',
  'and',
  'or',
  'not',
  'in',
  'is',
  'with',
  'catch',
  'assert',
  'lambda',
  'yield',
  'await',
  'typeof',
  'sizeof',
  'new',
  'super',
  'print',
]);

/** Plain words shorter than this ("a(", "x=") are too likely to be ordinary prose to withhold. */
const MIN_PLAIN_LENGTH = 3;

function addedLines(patch: string): string[] {
  return patch
    .split('\n')
    .filter((line) => line.startsWith('+') && !line.startsWith('+++'))
    .map((line) => line.slice(1));
}

export function addedIdentifiers(patch: string): Set<string> {
  const names = new Set<string>();
  for (const line of addedLines(patch)) {
    for (const pattern of [DEFINITION, CALL, KEYWORD_ARGUMENT]) {
      for (const match of line.matchAll(pattern)) {
        const name = match[1];
        if (name.length >= MIN_PLAIN_LENGTH && !KEYWORDS.has(name)) names.add(name);
      }
    }
    for (const match of line.matchAll(COMPOUND_IDENTIFIER)) names.add(match[0]);
  }
  return names;
}
