/** One file of a unified diff: its header lines and its hunks. */
export interface DiffFile {
  /** Path on the old side (null for an added file) and on the new side (null for a deleted file). */
  oldPath: string | null;
  newPath: string | null;
  header: string;
  hunks: DiffHunk[];
}

export interface DiffHunk {
  text: string;
  /** Old-side line numbers of the lines the hunk removes, with their text. */
  removed: { line: number; text: string }[];
  /** Texts of the lines the hunk adds. */
  added: string[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@/;

/** Splits `git diff` output (no colour, default prefixes) into files and hunks. */
export function parseDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let hunk: DiffHunk | undefined;
  let oldLine = 0;
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      file = { oldPath: null, newPath: null, header: line + '\n', hunks: [] };
      hunk = undefined;
      files.push(file);
      continue;
    }
    if (!file) continue;
    const start = HUNK.exec(line);
    if (start) {
      hunk = { text: line + '\n', removed: [], added: [] };
      file.hunks.push(hunk);
      oldLine = Number(start[1]);
      continue;
    }
    if (!hunk) {
      file.header += line + '\n';
      if (line.startsWith('--- ')) file.oldPath = pathOf(line.slice(4), 'a/');
      if (line.startsWith('+++ ')) file.newPath = pathOf(line.slice(4), 'b/');
      if (line.startsWith('rename from ')) file.oldPath = line.slice('rename from '.length);
      continue;
    }
    hunk.text += line + '\n';
    if (line.startsWith('-')) {
      hunk.removed.push({ line: oldLine, text: line.slice(1) });
      oldLine += 1;
    } else if (line.startsWith('+')) {
      hunk.added.push(line.slice(1));
    } else if (line.startsWith(' ')) {
      oldLine += 1;
    }
  }
  return files;
}

/** git quotes paths with unusual bytes; those are rare enough to be read as written. */
function pathOf(raw: string, prefix: string): string | null {
  if (raw === '/dev/null') return null;
  const path = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/** The form two lines are compared in: whitespace ignored, as `git blame -w` does. */
export function normalise(line: string): string {
  return line.replace(/\s+/g, '');
}
