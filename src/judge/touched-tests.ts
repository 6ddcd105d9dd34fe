import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../git';

/** git's built-in function-name rules per language (gitattributes' `diff=` drivers). */
const DRIVERS = [
  '*.java diff=java',
  '*.kt diff=kotlin',
  '*.go diff=golang',
  '*.rs diff=rust',
  '*.py diff=python',
  '*.c diff=cpp',
  '*.cc diff=cpp',
  '*.cpp diff=cpp',
  '*.h diff=cpp',
  '*.cs diff=csharp',
  '*.rb diff=ruby',
  '*.php diff=php',
];
/** Words a hunk header may put before a parenthesis that name no function. */
const KEYWORDS = new Set([
  'func',
  'fn',
  'def',
  'function',
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'return',
  'new',
  'match',
  'sizeof',
]);
const CALLED = /([A-Za-z_]\w*)\s*(?:<[^>()]*>)?\s*\(/g;

let attributes: Promise<string> | undefined;
function attributesFile(): Promise<string> {
  attributes ??= (async () => {
    // Named by its content, not by process: every process shares one file, where each used to leave its own in /tmp.
    const text = `${DRIVERS.join('\n')}\n`;
    const path = join(
      tmpdir(),
      `chainsmith-funcname-${createHash('sha256').update(text).digest('hex').slice(0, 12)}.gitattributes`,
    );
    // Written whole under a name of this process's, then renamed: another process never reads half of it.
    const partial = `${path}.${process.pid}`;
    await writeFile(partial, text);
    await rename(partial, path);
    return path;
  })();
  return attributes;
}

/**
 * A changed line that starts a new item rather than editing the one above it: a declaration
 * (`def`, `fn`, `func`, a Java or C# method), or what goes on top of one (a decorator, annotation or
 * attribute, a doc comment).
 */
const STARTS_ITEM =
  /^\s*(?:@\w|#\[|\/\*\*|\/\/\/|(?:async\s+)?def\s|(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s|func\s|(?:(?:public|protected|private|static|final|override|suspend|internal|open|fun|void)\s+)+[\w<>[\],\s]*\w+\s*\()/;

/**
 * The functions whose bodies the PR's change to its test files edits, as git names them in each
 * hunk's header (`@@ … @@ public void selectsByTag() {`): a test among them was changed by the PR.
 * The header names the function above the hunk, so a hunk that only adds lines and starts with a new
 * item (a test added after that function) does not count it; the new test's own name is in the
 * hunk, and the run after the change shows it.
 */
export async function touchedFunctions(
  repoPath: string,
  base: string,
  merge: string,
  files: string[],
): Promise<Set<string>> {
  if (!files.length) return new Set();
  const diff = await git(repoPath, [
    '-c',
    `core.attributesFile=${await attributesFile()}`,
    'diff',
    '-U0',
    '--no-color',
    base,
    merge,
    '--',
    ...files,
  ]);
  const names = new Set<string>();
  for (const hunk of diff.split(/^(?=@@ )/m).slice(1)) {
    const [header, ...lines] = hunk.split('\n');
    // The next file's header (diff --git, ---, +++) follows a file's last hunk.
    const end = lines.findIndex((line) => line.startsWith('diff '));
    // Blank and closing-bracket lines say nothing of whose body changed (git may shift an added
    // method's lines so that the closing brace above it comes first).
    const changed = (end < 0 ? lines : lines.slice(0, end)).filter(
      (line) => /^[+-]/.test(line) && !/^[\s})\];,]*$/.test(line.slice(1)),
    );
    const onlyAdds = changed.every((line) => line.startsWith('+'));
    if (onlyAdds && changed.length && STARTS_ITEM.test(changed[0].slice(1))) continue;
    const context = /^@@ [^@]* @@ (.+)$/.exec(header)?.[1] ?? '';
    for (const [, name] of context.matchAll(CALLED)) if (!KEYWORDS.has(name)) names.add(name);
  }
  return names;
}

/** Whether a test id (`pkg/TestX/case`, `Class#method(String)[2]`, `target::mod::test_x`) names one of the functions. */
export function touchedTest(id: string, functions: Set<string>): boolean {
  return id.split(/\W+/).some((part) => functions.has(part));
}
