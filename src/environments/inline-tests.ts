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
export function inlineTestFiles(repoPath: string, pr: PullRequest): Promise<string[]> {
  const key = `${repoPath}\0${pr.baseSha}\0${pr.mergeSha}`;
  let files = found.get(key);
  if (!files) {
    files = changedTestItems(repoPath, pr);
    found.set(key, files);
  }
  return files;
}

async function changedTestItems(repoPath: string, pr: PullRequest): Promise<string[]> {
  const candidates = pr.files.filter((f) => f.kind === 'code' && f.status !== 'deleted' && readerFor(f.path));
  const changed = await Promise.all(
    candidates.map(async ({ path }) => {
      const merge = await showFile(repoPath, `${pr.mergeSha}:${path}`);
      const items = merge === undefined ? undefined : testItems(path, merge);
      if (!items?.length) return false;
      const base = await showFile(repoPath, `${pr.baseSha}:${path}`);
      const before = base === undefined ? [] : testItems(path, base);
      return before !== undefined && before.join('\n') !== items.join('\n');
    }),
  );
  return candidates.filter((_, i) => changed[i]).map((f) => f.path);
}

/**
 * `tree` with its own test items taken out and `merge`'s put at its end, where every item of the file
 * is declared above them (a `macro_rules!` is visible only below its definition). Undefined where
 * either does not read as items: the tree is left as it is then.
 */
export function withTestItemsOf(path: string, tree: string, merge: string): string | undefined {
  const read = readerFor(path);
  const ours = read?.(tree);
  const theirs = read?.(merge);
  if (!ours || !theirs) return undefined;
  let kept = '';
  let at = 0;
  for (const s of ours) {
    kept += tree.slice(at, s.start);
    at = s.end;
  }
  kept += tree.slice(at);
  const items = theirs.map((s) => merge.slice(s.start, s.end));
  return items.length ? `${kept.trimEnd()}\n\n${items.join('\n\n')}\n` : kept;
}

/**
 * Puts the merge's test items of `files` into the sandbox's tree, in place of the tree's own: the PR's
 * unit tests against whatever code is there (the base's, an agent's). A file the tree lacks (an agent
 * removed or never wrote it) is left out: its tests then do not run, and count as not passing.
 */
export async function overlayInlineTests(
  sandbox: Sandbox,
  repoPath: string,
  mergeSha: string,
  files: string[],
): Promise<void> {
  for (const path of files) {
    const merge = await showFile(repoPath, `${mergeSha}:${path}`);
    const r = await sandbox.exec(`[ ! -f ${shellQuote(path)} ] || base64 -w0 -- ${shellQuote(path)}`, {
      timeoutSeconds: 60,
      maxOutputChars: 64 * 1024 * 1024,
      cwd: REPO_DIR,
    });
    if (merge === undefined || r.exitCode !== 0 || !r.output) continue;
    const next = withTestItemsOf(path, Buffer.from(r.output, 'base64').toString('utf8'), merge);
    if (next !== undefined) await sandbox.writeFile(`${REPO_DIR}/${path}`, next);
  }
}
