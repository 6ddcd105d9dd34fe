/** One added or deleted line of a `git diff -U0`. */
interface DiffLine {
  /** The file as it was before (undefined for a file the diff creates). */
  path?: string;
  /** The file as it is after (undefined for a file the diff deletes). */
  newPath?: string;
  sign: '+' | '-';
  /** The line without its sign. */
  text: string;
  /** For a deleted line, its number in the old file; for an added line, where the old side stands. */
  oldLine: number;
  /** Which hunk of the diff the line is in, counted from 0. */
  hunk: number;
}

/**
 * The added and deleted lines of a `git diff -U0`, in order. File headers run from `diff --git` to the
 * first hunk, so a deleted line that reads like a header ("-- comment" in SQL or Lua) is still a line.
 */
export function* diffLines(diff: string): Generator<DiffLine> {
  let path: string | undefined;
  let newPath: string | undefined;
  let oldLine = 0;
  let header = false;
  let hunk = -1;
  for (const text of diff.split('\n')) {
    if (text.startsWith('diff --git ')) header = true;
    else if (header && text.startsWith('--- ')) path = text === '--- /dev/null' ? undefined : text.slice(6);
    else if (header && text.startsWith('+++ ')) newPath = text === '+++ /dev/null' ? undefined : text.slice(6);
    else if (text.startsWith('@@'))
      [header, oldLine, hunk] = [false, Number(/^@@ -(\d+)/.exec(text)?.[1] ?? 0), hunk + 1];
    else if (header) continue;
    else if (text.startsWith('+')) yield { path, newPath, sign: '+', text: text.slice(1), oldLine, hunk };
    else if (text.startsWith('-')) yield { path, newPath, sign: '-', text: text.slice(1), oldLine: oldLine++, hunk };
  }
}
