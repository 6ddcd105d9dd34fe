import { type DiffFile, type DiffHunk, parseDiff } from './diff-parse';

/** Below this much room left, a hunk that does not fit is left out rather than cut. */
const MIN_CUT = 1500;
const MAX_NAMED = 15;

/**
 * A diff cut to about `budget` bytes for a reader: the hunks `first` picks come first, then the others
 * in order while they fit; a hunk too big for the room left is cut at a line. The kept hunks are
 * printed in the diff's own order, followed by "[trimmed N bytes …]" naming the files that lost hunks.
 */
export function trimDiff(
  diff: string,
  budget: number,
  first: (file: DiffFile, hunk: DiffHunk) => boolean = () => false,
): string {
  if (diff.length <= budget) return diff;
  const files = parseDiff(diff);
  // A file with no hunks (binary, rename, mode change) is one item of its header alone.
  const items = files.flatMap((file, f) =>
    file.hunks.length === 0
      ? [{ f, h: -1, size: file.header.length }]
      : file.hunks.map((hunk, h) => ({ f, h, size: hunk.text.length })),
  );
  const ordered = [
    ...items.filter((item) => item.h >= 0 && first(files[item.f], files[item.f].hunks[item.h])),
    ...items.filter((item) => !(item.h >= 0 && first(files[item.f], files[item.f].hunks[item.h]))),
  ];
  const kept = new Map<string, string>();
  const headed = new Set<number>();
  let room = budget;
  for (const item of ordered) {
    const header = headed.has(item.f) ? 0 : files[item.f].header.length;
    const text = item.h < 0 ? '' : files[item.f].hunks[item.h].text;
    if (header + item.size <= room) {
      kept.set(`${item.f}:${item.h}`, text);
    } else if (room - header >= MIN_CUT && item.h >= 0) {
      const cut = text.slice(0, text.lastIndexOf('\n', room - header) + 1);
      kept.set(`${item.f}:${item.h}`, cut + `[hunk cut: ${text.length - cut.length} bytes]\n`);
    } else {
      continue;
    }
    headed.add(item.f);
    room -= header + (kept.get(`${item.f}:${item.h}`) as string).length;
  }
  let out = '';
  const lost = new Set<string>();
  files.forEach((file, f) => {
    if (headed.has(f)) out += file.header;
    const hunks = file.hunks.length === 0 ? [-1] : file.hunks.map((_, h) => h);
    for (const h of hunks) {
      const text = kept.get(`${f}:${h}`);
      if (text === undefined || text !== (h < 0 ? '' : file.hunks[h].text))
        lost.add(file.newPath ?? file.oldPath ?? '?');
      if (text !== undefined) out += text;
    }
  });
  const names = [...lost];
  const named =
    names.slice(0, MAX_NAMED).join(', ') +
    (names.length > MAX_NAMED ? `, and ${names.length - MAX_NAMED} more files` : '');
  return out + `[trimmed ${Math.max(0, diff.length - out.length)} bytes; hunks left out or cut in: ${named}]\n`;
}
