import type { Span } from '../../contract';

/** A token of Rust source: its kind, text where the parser needs it, and where it lies. */
interface Token {
  kind: 'doc' | 'open' | 'close' | 'punct' | 'word' | 'literal';
  text: string;
  start: number;
  end: number;
}

const WORD = /[\p{L}\p{N}_]/u;
const RAW_STRING = /(?:b|c)?r(#*)"/y;
const STRING = /(?:b|c)?"/y;
const BYTE_CHAR = /b'/y;

/**
 * Rust's tokens, as far as finding items needs them: brackets, words and single punctuation, with
 * strings, raw strings, characters (told from lifetimes) and comments read whole, so a brace inside
 * one is not a brace. Outer doc comments (three slashes, or a block comment opening with two stars) are tokens: they belong to the item below
 * them. Undefined where the text does not lex (an unterminated string or comment).
 */
function tokens(source: string): Token[] | undefined {
  const out: Token[] = [];
  // A shebang line (`#!` not opening an inner attribute) is no token, as rustc reads it.
  let i = source.startsWith('#!') && !/^#!\s*\[/.test(source) ? Math.max(source.indexOf('\n'), 0) || source.length : 0;
  const at = (re: RegExp) => {
    re.lastIndex = i;
    return re.exec(source);
  };
  while (i < source.length) {
    const c = source[i];
    const start = i;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      const eol = source.indexOf('\n', i);
      i = eol < 0 ? source.length : eol;
      // `///` documents the item below; `////` is a plain comment, `//!` the enclosing module's.
      if (source.startsWith('///', start) && source[start + 3] !== '/')
        out.push({ kind: 'doc', text: '', start, end: i });
      continue;
    }
    if (source.startsWith('/*', i)) {
      let depth = 0;
      do {
        if (source.startsWith('/*', i)) (depth++, (i += 2));
        else if (source.startsWith('*/', i)) (depth--, (i += 2));
        else if (i >= source.length) return undefined;
        else i++;
      } while (depth > 0);
      const text = source.slice(start, i);
      if (text.startsWith('/**') && !text.startsWith('/***') && text !== '/**/')
        out.push({ kind: 'doc', text: '', start, end: i });
      continue;
    }
    const raw = at(RAW_STRING);
    if (raw) {
      const close = source.indexOf(`"${raw[1]}`, i + raw[0].length);
      if (close < 0) return undefined;
      i = close + 1 + raw[1].length;
      out.push({ kind: 'literal', text: '', start, end: i });
      continue;
    }
    const string = at(STRING);
    if (string) {
      i += string[0].length;
      while (i < source.length && source[i] !== '"') i += source[i] === '\\' ? 2 : 1;
      if (i >= source.length) return undefined;
      i++;
      out.push({ kind: 'literal', text: '', start, end: i });
      continue;
    }
    if (c === "'" || at(BYTE_CHAR)) {
      i = source.indexOf("'", i) + 1;
      const next = String.fromCodePoint(source.codePointAt(i) ?? 0);
      // A character literal ('x', '\n', '\u{1F600}') closes; a lifetime or label ('a, 'static) does not.
      if (next === '\\') {
        i += 2;
        while (i < source.length && source[i] !== "'") i++;
        if (i >= source.length) return undefined;
        i++;
      } else if (source[i + next.length] === "'") i += next.length + 1;
      else while (i < source.length && WORD.test(source[i])) i++;
      out.push({ kind: 'literal', text: '', start, end: i });
      continue;
    }
    if (WORD.test(c)) {
      while (i < source.length && WORD.test(source[i])) i++;
      out.push({ kind: 'word', text: source.slice(start, i), start, end: i });
      continue;
    }
    i++;
    const kind = '([{'.includes(c) ? 'open' : ')]}'.includes(c) ? 'close' : 'punct';
    out.push({ kind, text: c, start, end: i });
  }
  return out;
}

/** The index of the bracket that closes the one at `open`, or -1. */
function closing(toks: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i].kind === 'open') depth++;
    else if (toks[i].kind === 'close' && --depth === 0) return i;
  }
  return -1;
}

/** Whether a cfg predicate holds only in test builds: `test`, or `all(…)` with `test` among its terms. */
function testOnly(predicate: string): boolean {
  if (predicate === 'test') return true;
  const all = /^all\((.*)\)$/.exec(predicate);
  if (!all) return false;
  let depth = 0;
  let term = '';
  const terms: string[] = [];
  for (const c of all[1]) {
    if (c === ',' && depth === 0) (terms.push(term), (term = ''));
    else {
      depth += c === '(' ? 1 : c === ')' ? -1 : 0;
      term += c;
    }
  }
  return [...terms, term].some(testOnly);
}

/**
 * A test function's own attribute: `#[test]`, or a test macro's (`#[tokio::test]`,
 * `#[tokio::test(flavor = "multi_thread")]`), which only test builds compile as `#[cfg(test)]` does.
 */
const TEST_ATTRIBUTE = /^(\w+::)*test(\(.*\))?$/;

/** Items that end at their `;` whatever braces they hold (`use a::{b, c};`, `static X: S = S { … };`). */
const SEMICOLON_ITEMS = new Set(['use', 'static', 'type']);

/** The index of an item's last token, the item's first word at `from`; -1 where it does not end. */
function itemEnd(toks: Token[], from: number): number {
  let i = from;
  // Visibility and qualifiers before the keyword: `pub(crate)`, `unsafe`, `async`, `extern "C"`.
  while (toks[i]?.kind === 'word' && ['pub', 'unsafe', 'async', 'default', 'extern'].includes(toks[i].text)) {
    i++;
    if (toks[i]?.text === '(' && toks[i - 1].text === 'pub') {
      const close = closing(toks, i);
      if (close < 0) return -1;
      i = close + 1;
    }
    if (toks[i]?.kind === 'literal') i++;
  }
  const keyword = toks[i]?.text ?? '';
  const followedByFn = ['fn', 'unsafe', 'async', 'extern'].includes(toks[i + 1]?.text ?? '');
  const bySemicolon =
    SEMICOLON_ITEMS.has(keyword) ||
    (keyword === 'crate' && toks[i - 1]?.text === 'extern') ||
    (keyword === 'const' && !followedByFn);
  for (; i < toks.length; i++) {
    const t = toks[i];
    if (t.text === ';') return i;
    if (t.kind === 'close') return -1;
    if (t.kind !== 'open') continue;
    const close = closing(toks, i);
    if (close < 0) return -1;
    // A `{` right after `<`, `,` or `=` is a const generic's block (`Foo<{ N + 1 }>`, `const N: usize = { 1 }`), not the body.
    const constBlock = ['<', ',', '='].includes(toks[i - 1]?.text ?? '');
    if (t.text === '{' && !bySemicolon && !constBlock) return close;
    i = close;
  }
  return -1;
}

/**
 * The top-level items of a Rust file that only test builds compile (`#[cfg(test)] mod tests { … }`,
 * `#[cfg(all(test, feature = "x"))] fn helper() …`, a test function of its own at the top, `#[test] fn
 * test_same() …` as similar's algorithms keep theirs), each from its first outer attribute or doc comment
 * to its last character: the unit tests a PR keeps beside its code, which chainsmith overlays as it
 * does a test file (inline-tests.ts). Nested modules' own test items belong to their module's item.
 * Undefined where the file does not read as Rust items: nothing is taken from it then.
 */
export function rustTestItems(source: string): Span[] | undefined {
  const toks = tokens(source);
  if (!toks) return undefined;
  const items: Span[] = [];
  let i = 0;
  while (i < toks.length) {
    const first = i;
    let test = false;
    let inner = false;
    for (;;) {
      if (toks[i]?.kind === 'doc') i++;
      else if (toks[i]?.text === '#' && (toks[i + 1]?.text === '[' || toks[i + 1]?.text === '!')) {
        inner = toks[i + 1].text === '!';
        const open = inner ? i + 2 : i + 1;
        const close = closing(toks, open);
        if (toks[open]?.text !== '[' || close < 0) return undefined;
        const attribute = source.slice(toks[open].end, toks[close].start).replace(/\s+/g, '');
        const cfg = /^cfg\((.*)\)$/.exec(attribute);
        if (!inner && ((cfg && testOnly(cfg[1])) || TEST_ATTRIBUTE.test(attribute))) test = true;
        i = close + 1;
        // An inner attribute (`#![…]`) is the file's, not an item's.
        if (inner) break;
      } else break;
    }
    if (inner) continue;
    if (i >= toks.length) break;
    const last = itemEnd(toks, i);
    if (last < 0) return undefined;
    if (test) items.push({ start: toks[first].start, end: toks[last].end });
    i = last + 1;
  }
  return items;
}
