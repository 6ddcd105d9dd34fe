import { COMPOUND_IDENTIFIER } from './code-words';

/**
 * What a query must not repeat from a gold patch: the names the patch introduces or removes, its string
 * literals, the files it touches and its code lines. Names present on both sides of the diff (a function
 * whose body changed) already exist in the code base, so naming them says where, not what.
 */
export interface PatchSecrets {
  /** snake_case, camelCase, PascalCase and dotted names: code wherever they appear. */
  identifiers: Set<string>;
  /** Plain words the patch defines (functions, classes, parameters): code only by context. */
  names: Set<string>;
  literals: Set<string>;
  /** Changed files, as full paths and as file names. */
  paths: Set<string>;
  /** Code lines added or removed, as token lists (see codeTokens). */
  codeLines: string[][];
}

const DEFINITION = /\b(?:def|class|function|const|let|var|type|interface|enum|struct|fn|func)\s+([A-Za-z_$][\w$]*)/g;
const KEYWORD_PARAMETER = /[(,]\s*([A-Za-z_]\w*)\s*=(?!=)/g;
const DOTTED = /\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b/g;
const STRING_LITERAL = /"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'/g;
const COMMENT_LINE = /^\s*(#|\/\/|\/\*|\*|--|;)/;
const FILE_HEADER = /^diff --git a\/(\S+) b\/(\S+)$/;

/** Literals shorter than this ("utf-8", "id") are too common in prose to count. */
const MIN_LITERAL = 8;
const MIN_NAME = 3;
/** Generic local names that say nothing about a change when a query uses them as words. */
const GENERIC = new Set([
  'self',
  'cls',
  'args',
  'kwargs',
  'value',
  'values',
  'result',
  'results',
  'data',
  'item',
  'items',
  'other',
  'obj',
  'tmp',
  'res',
  'ret',
  'err',
  'error',
  'name',
  'none',
  'true',
  'false',
  'null',
  'undefined',
  'this',
]);

/** Code tokens: words, numbers and single symbols. The leak check compares runs of these. */
export function codeTokens(text: string): string[] {
  return text.match(/[A-Za-z_$][\w$]*|\d+(?:\.\d+)?|[^\s\w]/g) ?? [];
}

interface Side {
  identifiers: Set<string>;
  names: Set<string>;
  literals: Set<string>;
}

function collect(lines: string[]): Side {
  const side: Side = { identifiers: new Set(), names: new Set(), literals: new Set() };
  for (const line of lines) {
    for (const m of line.matchAll(STRING_LITERAL)) {
      const literal = (m[1] ?? m[2]).trim();
      if (literal.length >= MIN_LITERAL) side.literals.add(literal);
    }
    // Names inside string literals and comments are prose; only the code part of a line names things.
    const code = COMMENT_LINE.test(line) ? '' : line.replace(STRING_LITERAL, '""').replace(/\s#.*$|\s\/\/.*$/, '');
    for (const m of code.matchAll(COMPOUND_IDENTIFIER)) side.identifiers.add(m[0]);
    for (const m of code.matchAll(DOTTED)) side.identifiers.add(m[0]);
    for (const pattern of [DEFINITION, KEYWORD_PARAMETER]) {
      for (const m of code.matchAll(pattern)) {
        const name = m[1];
        if (name.length >= MIN_NAME && !GENERIC.has(name.toLowerCase())) side.names.add(name);
      }
    }
  }
  return side;
}

function symmetricDifference(a: Set<string>, b: Set<string>): Set<string> {
  return new Set([...[...a].filter((x) => !b.has(x)), ...[...b].filter((x) => !a.has(x))]);
}

export function patchSecrets(patch: string): PatchSecrets {
  const added: string[] = [];
  const removed: string[] = [];
  const paths = new Set<string>();
  for (const line of patch.split('\n')) {
    const header = FILE_HEADER.exec(line);
    if (header) {
      for (const path of [header[1], header[2]]) {
        paths.add(path);
        paths.add(path.split('/').pop()!);
      }
    } else if (line.startsWith('+') && !line.startsWith('+++')) added.push(line.slice(1));
    else if (line.startsWith('-') && !line.startsWith('---')) removed.push(line.slice(1));
  }
  const plus = collect(added);
  const minus = collect(removed);
  const codeLines = [...added, ...removed]
    .filter((line) => !COMMENT_LINE.test(line))
    .map(codeTokens)
    .filter((tokens) => tokens.length > 0);
  return {
    identifiers: symmetricDifference(plus.identifiers, minus.identifiers),
    names: symmetricDifference(plus.names, minus.names),
    literals: symmetricDifference(plus.literals, minus.literals),
    paths,
    codeLines,
  };
}

/** The secrets of several patches together: an overview must not give away any stage's edit. */
export function mergeSecrets(all: PatchSecrets[]): PatchSecrets {
  const union = (pick: (s: PatchSecrets) => Set<string>) => new Set(all.flatMap((s) => [...pick(s)]));
  return {
    identifiers: union((s) => s.identifiers),
    names: union((s) => s.names),
    literals: union((s) => s.literals),
    paths: union((s) => s.paths),
    codeLines: all.flatMap((s) => s.codeLines),
  };
}
