import { diffLines } from './diff-lines';

/**
 * An edit a PR makes this many times, the same way, is a sweep inside it: a rename, a type or
 * qualifier added everywhere, a call replaced throughout. Chosen on one tuning repository and held on
 * the other (bench/README.md): real follow-ups repeat an edit up to 7 times, sweeps 8 and more.
 */
export const MIN_REPEATS = 8;
/** An edit in place keeps at least this share of the line's tokens, as a common start and end. */
const IN_PLACE_SHARE = 0.5;

const tokens = (text: string) => text.match(/[A-Za-z_]\w*|\d+|\S/g) ?? [];

/**
 * What an in-place edit of a line does, as "tokens out => tokens in" between the tokens it keeps at
 * the start and at the end; undefined where the new line is another line, not the old one edited.
 */
export function substitution(before: string, after: string): string | undefined {
  const [a, b] = [tokens(before), tokens(after)];
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end += 1;
  if (start + end < IN_PLACE_SHARE * Math.max(a.length, b.length) || a.length + b.length === 0) return undefined;
  return `${a.slice(start, a.length - end).join(' ')} => ${b.slice(start, b.length - end).join(' ')}`;
}

/** A diff line's place, `hunk:sign:index` (the index among the hunk's lines of that sign). */
export const editKey = (hunk: number, sign: '+' | '-', index: number) => `${hunk}:${sign}:${index}`;

/**
 * The lines of a `git diff -U0` that make an edit the diff makes at least MIN_REPEATS times (each
 * removed line paired with the added line at the same place in its hunk), removed and added side.
 * Whoever wrote those lines is not why the diff touched them.
 */
export function repeatedEdits(diff: string): Set<string> {
  const hunks = new Map<number, { removed: string[]; added: string[] }>();
  for (const { sign, text, hunk } of diffLines(diff)) {
    const lines = hunks.get(hunk) ?? { removed: [], added: [] };
    (sign === '+' ? lines.added : lines.removed).push(text);
    hunks.set(hunk, lines);
  }
  const bySubstitution = new Map<string, [number, number][]>();
  for (const [hunk, { removed, added }] of hunks) {
    for (let index = 0; index < Math.min(removed.length, added.length); index++) {
      const edit = substitution(removed[index].trim(), added[index].trim());
      if (edit !== undefined) bySubstitution.set(edit, [...(bySubstitution.get(edit) ?? []), [hunk, index]]);
    }
  }
  const repeated = new Set<string>();
  for (const places of bySubstitution.values()) {
    if (places.length < MIN_REPEATS) continue;
    for (const [hunk, index] of places) repeated.add(editKey(hunk, '-', index)).add(editKey(hunk, '+', index));
  }
  return repeated;
}
