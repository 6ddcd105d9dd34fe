/** Line comments by file extension; C-like languages also have block comments. */
const HASH = new Set(['py', 'pyi', 'pyx', 'sh', 'rb', 'r', 'pl', 'cmake', 'toml', 'yaml', 'yml']);
const SLASH = new Set([
  'c',
  'h',
  'cc',
  'cpp',
  'cxx',
  'hpp',
  'java',
  'kt',
  'scala',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'ts',
  'tsx',
  'go',
  'rs',
  'cs',
  'swift',
  'php',
  'm',
  'dart',
]);
const PYTHON = new Set(['py', 'pyi', 'pyx']);
const DOCSTRING_START = /^[rRuUbB]?("""|''')/;

/**
 * Which lines of a file are comments or docstrings, 1-based (index 0 unused): lines with no code on
 * them. Python docstrings are the triple-quoted strings that open a line; C-like block comments run
 * from `/*` to `*\/`. A line with code and a trailing comment is code.
 */
export function commentLines(path: string, content: string): boolean[] {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const lines = content.split('\n');
  const marks = [false];
  let open: string | undefined;
  for (const raw of lines) {
    const line = raw.trim();
    if (open) {
      marks.push(true);
      if (line.includes(open)) open = undefined;
      continue;
    }
    if (PYTHON.has(extension)) {
      const start = DOCSTRING_START.exec(line);
      if (start) {
        marks.push(true);
        const rest = line.slice(start[0].length);
        if (!rest.includes(start[1])) open = start[1];
        continue;
      }
    }
    if (SLASH.has(extension) && line.startsWith('/*')) {
      marks.push(true);
      if (!line.slice(2).includes('*/')) open = '*/';
      continue;
    }
    const comment =
      (HASH.has(extension) && line.startsWith('#')) ||
      (SLASH.has(extension) && line.startsWith('//')) ||
      (extension === 'lua' && line.startsWith('--'));
    marks.push(comment);
  }
  return marks;
}

/** Prose: documentation, changelogs, READMEs, by extension or by a conventional name without one. */
const PROSE_EXTENSIONS = new Set(['md', 'markdown', 'rst', 'txt', 'adoc', 'asciidoc', 'rdoc', 'textile']);
const PROSE_NAMES =
  /^(readme|changes|changelog|history|news|authors|contributors|contributing|license|copying|notice)$/i;

/** Build and dependency files that happen to end in .txt. */
const BUILD_TEXT = /^(cmakelists\.txt|requirements.*\.txt|constraints.*\.txt)$/i;

/** Whether a file is prose, where every line says what something does rather than doing it. */
export function isProse(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  if (BUILD_TEXT.test(name)) return false;
  const dot = name.lastIndexOf('.');
  return PROSE_EXTENSIONS.has(dot > 0 ? name.slice(dot + 1).toLowerCase() : '') || PROSE_NAMES.test(name);
}
