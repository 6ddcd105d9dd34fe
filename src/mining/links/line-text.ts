import { diffLines } from './diff-lines';

/** A comment after code: sweeps add them (type comments, lint pragmas) to lines they do not otherwise change. */
const TRAILING_COMMENT = /\S\s+(#|\/\/)\s.*$/;

/**
 * A line without any whitespace or trailing comment: re-indenting, re-spacing, re-wrapping and a
 * sweep's pragma do not change it.
 */
export const squeeze = (text: string) => text.replace(TRAILING_COMMENT, (match) => match[0]).replace(/\s+/g, '');

/** Words that stand alone on a line in many languages and say nothing about who wrote the code around them. */
const LONE_WORDS = new Set([
  'else',
  'return',
  'pass',
  'break',
  'continue',
  'end',
  'try',
  'finally',
  'default',
  'then',
  'done',
  'fi',
  'endif',
  'true',
  'false',
  'null',
  'none',
  'nil',
]);
/** Imports and includes change with whatever uses them; a URL line changes when a site moves. */
const BOOKKEEPING =
  /^\s*(import\s|from\s+\S+\s+import\s|#\s*include\b|use\s+[\w:{}, ]+;|package\s+[\w.]+;?\s*$|require\s*\(|extern crate\s)|^\W*https?:\/\/\S+\W*$/;

/** Blank lines, braces, "return;", "else:", imports, a bare URL: any edit's, nobody's. */
export function isTrivial(text: string): boolean {
  const word = text.replace(/\W+/g, '').toLowerCase();
  return squeeze(text).length < 5 || word === '' || LONE_WORDS.has(word) || BOOKKEEPING.test(text);
}

/** A diff's added lines compared word by word with one blamed line, at most. */
const MAX_SIMILAR_CHECKS = 3000;

/** A line's identifiers and numbers. */
const tokens = (text: string) => new Set(text.match(/[A-Za-z_]\w*|\d+/g) ?? []);

/** How many consecutive lines a re-wrap may join into one, or split one into. */
const WRAP = 4;

/** Every join of up to WRAP consecutive lines of each run. */
function joins(runs: readonly string[][]): Set<string> {
  const found = new Set<string>();
  for (const run of runs) {
    for (let start = 0; start < run.length; start++) {
      let joined = '';
      for (let end = start; end < Math.min(run.length, start + WRAP); end++) found.add((joined += run[end]));
    }
  }
  return found;
}

/**
 * What one diff added and removed, squeezed, hunk by hunk: enough to tell a line the diff wrote from
 * one it only moved (to another place or file), re-indented or re-wrapped (joined with its
 * neighbours, or split), which it took out elsewhere in the same form.
 */
export class DiffText {
  readonly added = new Set<string>();
  readonly removed = new Set<string>();
  /** Added lines as written, for the word-by-word comparison. */
  private readonly addedText: string[] = [];
  /** Each hunk's removed and added lines, in order. */
  private readonly hunks = new Map<number, { removed: string[]; added: string[] }>();
  private readonly addedJoins: Set<string>;
  private readonly removedJoins: Set<string>;
  private readonly hunkJoins = new Map<number, Set<string>>();

  constructor(diff: string) {
    for (const { sign, text, hunk } of diffLines(diff)) {
      const line = squeeze(text);
      if (line === '') continue;
      const lines = this.hunks.get(hunk) ?? { removed: [], added: [] };
      this.hunks.set(hunk, lines);
      (sign === '+' ? this.added : this.removed).add(line);
      if (sign === '+') this.addedText.push(text);
      (sign === '+' ? lines.added : lines.removed).push(line);
    }
    const all = [...this.hunks.values()];
    this.addedJoins = joins(all.map((lines) => lines.added));
    this.removedJoins = joins(all.map((lines) => lines.removed));
  }

  /**
   * The diff wrote this line: added it, and did not take the same text out anywhere, whole or
   * wrapped otherwise. A line a sweep later touched (blame looks through sweeps) still counts where
   * the diff wrote a line whose every word it holds, and that is most of its words.
   */
  wrote(text: string): boolean {
    const line = squeeze(text);
    if (this.added.has(line)) return this.ownLine(line);
    const words = tokens(text);
    if (words.size < 2) return false;
    let checked = 0;
    for (const candidate of this.addedText) {
      if (++checked > MAX_SIMILAR_CHECKS) break;
      const own = tokens(candidate);
      if (
        own.size >= 2 &&
        own.size * 2 >= words.size &&
        [...own].every((word) => words.has(word)) &&
        this.ownLine(squeeze(candidate))
      )
        return true;
    }
    return false;
  }

  private ownLine(line: string): boolean {
    if (this.removedJoins.has(line)) return false;
    return ![...this.hunks.values()].some((lines) =>
      around(lines.added, line).some((joined) => this.removedJoins.has(joined)),
    );
  }

  /** A line this diff removed but put back somewhere, moved, re-indented or re-wrapped. */
  keeps(text: string): boolean {
    const line = squeeze(text);
    return (
      this.addedJoins.has(line) ||
      [...this.hunks.values()].some((lines) =>
        around(lines.removed, line).some((joined) => this.addedJoins.has(joined)),
      )
    );
  }

  /** A line of `hunk` that the same hunk puts back re-indented, re-spaced or re-wrapped: not changed at all. */
  keepsInPlace(hunk: number, text: string): boolean {
    const lines = this.hunks.get(hunk);
    if (!lines) return false;
    let own = this.hunkJoins.get(hunk);
    if (!own) this.hunkJoins.set(hunk, (own = joins([lines.added])));
    const line = squeeze(text);
    return own.has(line) || around(lines.removed, line).some((joined) => (own as Set<string>).has(joined));
  }
}

/** Joins of up to WRAP consecutive lines of `run` that hold `line` (but not `line` alone). */
function around(run: readonly string[], line: string): string[] {
  const found: string[] = [];
  run.forEach((text, index) => {
    if (text !== line) return;
    for (let start = Math.max(0, index - WRAP + 1); start <= index; start++) {
      let joined = '';
      for (let end = start; end < Math.min(run.length, start + WRAP); end++) {
        joined += run[end];
        if (end >= index && end > start) found.push(joined);
      }
    }
  });
  return found;
}
