import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../git';

/** git's built-in function-name rules per language (gitattributes' `diff=` drivers). */
const DRIVERS = ['*.java diff=java', '*.kt diff=kotlin', '*.go diff=golang', '*.rs diff=rust', '*.py diff=python', '*.c diff=cpp', '*.cc diff=cpp', '*.cpp diff=cpp', '*.h diff=cpp', '*.cs diff=csharp', '*.rb diff=ruby', '*.php diff=php'];
/** Words a hunk header may put before a parenthesis that name no function. */
const KEYWORDS = new Set(['func', 'fn', 'def', 'function', 'if', 'for', 'while', 'switch', 'catch', 'return', 'new', 'match', 'sizeof']);
const CALLED = /([A-Za-z_]\w*)\s*(?:<[^>()]*>)?\s*\(/g;

let attributes: Promise<string> | undefined;
function attributesFile(): Promise<string> {
  attributes ??= (async () => {
    const path = join(tmpdir(), `chainsmith-funcname-${process.pid}.gitattributes`);
    await writeFile(path, `${DRIVERS.join('\n')}\n`);
    return path;
  })();
  return attributes;
}

/**
 * The functions whose bodies the PR's change to its test files edits, as git names them in each
 * hunk's header (`@@ … @@ public void selectsByTag() {`): a test among them was changed by the PR.
 */
export async function touchedFunctions(repoPath: string, base: string, merge: string, files: string[]): Promise<Set<string>> {
  if (!files.length) return new Set();
  const diff = await git(repoPath, ['-c', `core.attributesFile=${await attributesFile()}`, 'diff', '-U0', '--no-color', base, merge, '--', ...files]);
  const names = new Set<string>();
  for (const header of diff.matchAll(/^@@ [^@]* @@ (.+)$/gm)) {
    for (const [, name] of header[1].matchAll(CALLED)) if (!KEYWORDS.has(name)) names.add(name);
  }
  return names;
}

/** Whether a test id (`pkg/TestX/case`, `Class#method(String)[2]`, `target::mod::test_x`) names one of the functions. */
export function touchedTest(id: string, functions: Set<string>): boolean {
  return id.split(/\W+/).some((part) => functions.has(part));
}
