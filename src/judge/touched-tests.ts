import { createHash } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../git';
import { declaredName, ownerOf } from './item-owner';

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
/** Blank and closing-bracket lines say nothing of whose body changed. */
const SAYS_NOTHING = /^[\s})\];,]*$/;

/** A file's text at a commit, as lines; none where the file is not there (added, deleted). */
async function linesAt(repoPath: string, commit: string, path: string | undefined): Promise<string[]> {
  if (!path) return [];
  const text = await git(repoPath, ['show', `${commit}:${path}`]).catch(() => '');
  return text.split('\n');
}

/** A file's path before (`--- a/x`) or after (`+++ b/x`) in its diff's head, or none for /dev/null. */
function pathOf(head: readonly string[], side: 'a' | 'b'): string | undefined {
  const prefix = `${side === 'a' ? '---' : '+++'} ${side}/`;
  return head
    .find((line) => line.startsWith(prefix))
    ?.slice(prefix.length)
    .replace(/\t$/, '');
}

/**
 * The functions whose bodies the PR's change to its test files edits: a test among them was changed by
 * the PR. Where a changed line declares a function or is one of its marks (decorator, annotation,
 * attribute, with their arguments), that function (item-owner.ts); elsewhere the function git names
 * in the hunk's header (`@@ … @@ public void selectsByTag() {`), which is the one above the hunk. So a
 * hunk that only adds lines and declares a new item (a test added after that function) counts
 * neither: the new test's own name is in the hunk, and the run after the change shows it.
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
    '-c',
    'core.quotePath=false',
    'diff',
    '-U0',
    '--no-color',
    base,
    merge,
    '--',
    ...files,
  ]);
  const names = new Set<string>();
  for (const file of diff.split(/^(?=diff )/m)) {
    const [head, ...hunks] = file.split(/^(?=@@ )/m);
    if (!hunks.length) continue;
    const headLines = head.split('\n');
    const [was, is] = [pathOf(headLines, 'a'), pathOf(headLines, 'b')];
    const [before, after] = await Promise.all([linesAt(repoPath, base, was), linesAt(repoPath, merge, is)]);
    // The functions the file declares after the change, read once and only where a hunk removes a line.
    let declaredAfter: Set<string> | undefined;
    const stays = (name: string) =>
      (declaredAfter ??= new Set(after.map(declaredName).filter((n): n is string => !!n))).has(name);
    for (const hunk of hunks) for (const name of hunkFunctions(hunk, before, after, stays)) names.add(name);
  }
  return names;
}

/** What one hunk of a `-U0` diff edits, read against the file before and after (touchedFunctions). */
function hunkFunctions(
  hunk: string,
  before: readonly string[],
  after: readonly string[],
  stays: (name: string) => boolean,
): string[] {
  const [header, ...lines] = hunk.split('\n');
  const at = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@ ?(.*)$/.exec(header);
  if (!at) return [];
  // Each changed line with its place (0-based) in its side's file.
  let [old, now] = [Number(at[1]) - 1, Number(at[2]) - 1];
  const changed: { text: string; owner: string | undefined }[] = [];
  // The function the hunk's last declaration line on each side declares: the body lines after it are its.
  const declared: Record<string, string | undefined> = {};
  for (const line of lines) {
    if (!/^[+-]/.test(line)) continue;
    const added = line.startsWith('+');
    const place = added ? now++ : old++;
    if (SAYS_NOTHING.test(line.slice(1))) continue;
    declared[line[0]] = declaredName(line.slice(1)) ?? declared[line[0]];
    const owner = ownerOf(added ? after : before, place) ?? declared[line[0]];
    // A function the change removes whole names no test after it.
    changed.push({ text: line, owner: added || !owner || stays(owner) ? owner : '' });
  }
  const onlyAdds = changed.every((c) => c.text.startsWith('+'));
  // A new item: its name is in the hunk, and the header names the one above it.
  if (onlyAdds && changed.length && STARTS_ITEM.test(changed[0].text.slice(1))) {
    if (changed.some((c) => declaredName(c.text.slice(1)))) return [];
    return changed.flatMap((c) => (c.owner ? [c.owner] : []));
  }
  const owned = changed.flatMap((c) => (c.owner ? [c.owner] : []));
  if (changed.every((c) => c.owner !== undefined)) return owned;
  const context = at[3];
  return [...owned, ...[...context.matchAll(CALLED)].map((m) => m[1]).filter((name) => !KEYWORDS.has(name))];
}

/** Whether a test id (`pkg/TestX/case`, `Class#method(String)[2]`, `target::mod::test_x`) names one of the functions. */
export function touchedTest(id: string, functions: Set<string>): boolean {
  return id.split(/\W+/).some((part) => functions.has(part));
}
