import type { Span } from './contract';
import { LANGUAGES } from './languages';
import { showFile } from './cat-file';
import { REPO_DIR, type Sandbox } from '../container/sandbox';
import { shellQuote } from '../process/shell-quote';
import type { PullRequest } from '../schemas';
import { RecentMap } from '../recent-map';

type ItemReader = (source: string) => Span[] | undefined;

/** The reader of a code file's test items, by the extension of a language that keeps tests beside code. */
const READERS = new Map<string, ItemReader>(
  LANGUAGES.flatMap((l) => {
    const read = l.files.inlineTests;
    return read ? l.files.code.map((ext): [string, ItemReader] => [ext, read]) : [];
  }),
);

function readerFor(path: string): ItemReader | undefined {
  return READERS.get(path.slice(path.lastIndexOf('.') + 1));
}

/** A file's test items, each whole, in the order they come; undefined where the file cannot be read so. */
function testItems(path: string, source: string): string[] | undefined {
  return readerFor(path)?.(source)?.map((s) => source.slice(s.start, s.end));
}

/** Found once per PR and clone: every rollout round and gold run of a stage asks again. */
const found = new RecentMap<string, Promise<string[]>>(256);

/**
 * The PR's code files whose inline tests it changes: a Rust file whose `#[cfg(test)]` items at the
 * merge differ from its base's. A PR that changes its unit tests there and no test file is still a
 * PR with tests; those items are its tests as a test file's content is (overlayInlineTests).
 */
export function inlineTestFiles(
  repoPath: string,
  pr: Pick<PullRequest, 'files' | 'baseSha' | 'mergeSha'>,
): Promise<string[]> {
  const key = `${repoPath}\0${pr.baseSha}\0${pr.mergeSha}`;
  let files = found.get(key);
  if (!files) {
    files = changedTestItems(repoPath, pr);
    found.set(key, files);
  }
  return files;
}

async function changedTestItems(
  repoPath: string,
  pr: Pick<PullRequest, 'files' | 'baseSha' | 'mergeSha'>,
): Promise<string[]> {
  const candidates = pr.files.filter((f) => f.kind === 'code' && f.status !== 'deleted' && readerFor(f.path));
  const changed = await Promise.all(
    candidates.map(async ({ path, status }) => {
      const merge = await showFile(repoPath, `${pr.mergeSha}:${path}`);
      const items = merge === undefined ? undefined : testItems(path, merge);
      if (!items?.length) return false;
      // Only a file the PR adds has no base; one that cannot be read there is not taken for changed.
      const base = status === 'added' ? '' : await showFile(repoPath, `${pr.baseSha}:${path}`);
      const before = base === undefined ? undefined : testItems(path, base);
      return before !== undefined && before.join('\n') !== items.join('\n');
    }),
  );
  return candidates.filter((_, i) => changed[i]).map((f) => f.path);
}

/** The functions the merge's test items of `files` declare: the names a test among them can have. */
export async function testItemFunctions(repoPath: string, mergeSha: string, files: string[]): Promise<Set<string>> {
  const names = new Set<string>();
  for (const path of files) {
    const merge = await showFile(repoPath, `${mergeSha}:${path}`);
    for (const item of (merge !== undefined && testItems(path, merge)) || [])
      for (const m of item.matchAll(/\bfn\s+([A-Za-z_]\w*)/g)) names.add(m[1]);
  }
  return names;
}

/** What pairs an item with its other version: its head (attributes, keyword, name) up to its body. */
function itemKey(text: string): string {
  const body = text.search(/[{;]/);
  return (body < 0 ? text : text.slice(0, body)).replace(/\s+/g, ' ').trim();
}

/**
 * `tree` with its own test items replaced by `merge`'s, each where its counterpart was: an item of the
 * merge takes the place of the tree's item with the same head, and one with none goes beside the
 * merge item before it (or, first, beside the one after it; with none, where the tree's first test item
 * was, else at the end). In place, not at the end: a `#[macro_use] mod` serves only the modules
 * declared below it, and a `macro_rules!` only the code below it. Undefined where either does not
 * read as items.
 */
export function withTestItemsOf(path: string, tree: string, merge: string): string | undefined {
  const read = readerFor(path);
  const ours = read?.(tree);
  const theirs = read?.(merge);
  if (!ours || !theirs) return undefined;
  const treeItems = ours.map((s) => tree.slice(s.start, s.end));
  const mergeItems = theirs.map((s) => merge.slice(s.start, s.end));
  const slots: string[][] = ours.map(() => []);
  const end: string[] = [];
  const used = new Set<number>();
  let waiting: string[] = [];
  let last: string[] | undefined;
  for (const item of mergeItems) {
    const i = treeItems.findIndex((t, k) => !used.has(k) && itemKey(t) === itemKey(item));
    if (i < 0) {
      (last ?? waiting).push(item);
      continue;
    }
    used.add(i);
    slots[i].push(...waiting, item);
    waiting = [];
    last = slots[i];
  }
  (slots[0] ?? end).push(...waiting);
  let out = '';
  let at = 0;
  ours.forEach((s, i) => {
    out += tree.slice(at, s.start) + slots[i].join('\n\n');
    at = s.end;
  });
  out += tree.slice(at);
  return end.length ? `${out.trimEnd()}\n\n${end.join('\n\n')}\n` : out;
}

/**
 * std's macros a test's verdict rests on. Defined or imported under one of these names in the tree
 * where the merge has no such definition, it would stand in for std's inside the overlaid tests
 * (textual scope: a `macro_rules!` above a module serves it), and an `assert_eq!` that asserts nothing
 * would pass them.
 */
const STD_MACROS =
  'assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|panic|unreachable|todo|unimplemented';
const SHADOW = `(macro_rules![[:space:]]*|[[:space:]]as[[:space:]]+)(${STD_MACROS})([^A-Za-z0-9_]|$)`;

/** The lines of `.rs` files defining or importing a macro under a name of STD_MACROS, at `rev` (or the work tree). */
async function shadowing(sandbox: Sandbox, rev?: string): Promise<string[]> {
  const r = await sandbox.exec(
    `git grep -hoE ${rev ? '' : '--untracked'} ${shellQuote(SHADOW)} ${rev ?? ''} -- '*.rs' || true`,
    {
      timeoutSeconds: 120,
      maxOutputChars: 64_000,
      cwd: REPO_DIR,
    },
  );
  return r.output
    .split('\n')
    .map((l) => l.replace(/^[0-9a-f]{40}:/, '').trim())
    .filter(Boolean)
    .sort();
}

/**
 * Puts the merge's test items of `files` into the sandbox's tree, in place of the tree's own: the PR's
 * unit tests against whatever code is there (the base's, an agent's). A file the tree lacks (an agent
 * removed or never wrote it) is left out: its tests then do not run, and count as not passing. Returns
 * why the tests cannot be put in (a file that cannot be read or does not read as items, a std assertion
 * macro the tree redefines): the run then fails with that, rather than run the tree's own tests.
 */
export async function overlayInlineTests(
  sandbox: Sandbox,
  repoPath: string,
  mergeSha: string,
  files: string[],
): Promise<string | undefined> {
  for (const path of files) {
    const merge = await showFile(repoPath, `${mergeSha}:${path}`);
    const r = await sandbox.exec(`[ ! -f ${shellQuote(path)} ] || base64 -w0 -- ${shellQuote(path)}`, {
      timeoutSeconds: 60,
      maxOutputChars: 64 * 1024 * 1024,
      cwd: REPO_DIR,
    });
    if (r.exitCode !== 0 || merge === undefined) return `the PR's tests in ${path} cannot be read: ${r.output.trim()}`;
    if (!r.output) continue;
    const next = withTestItemsOf(path, Buffer.from(r.output, 'base64').toString('utf8'), merge);
    if (next === undefined) return `${path} does not read as Rust items, so the PR's tests cannot be put in it`;
    await sandbox.writeFile(`${REPO_DIR}/${path}`, next);
  }
  if (!files.length) return undefined;
  const [ours, theirs] = [await shadowing(sandbox), await shadowing(sandbox, mergeSha)];
  const extra = ours.filter((line) => {
    const k = theirs.indexOf(line);
    if (k < 0) return true;
    theirs.splice(k, 1);
    return false;
  });
  return extra.length
    ? `the tree defines a macro under the name of std's own, which the PR's tests would use instead: ${extra.slice(0, 3).join('; ')}`
    : undefined;
}
