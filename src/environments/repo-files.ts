import { git, gitBytes } from '../git';
import type { RepoFiles } from './contract';

/**
 * A repository's files at one commit, read from the host clone with plain git (read-only, no
 * checkout), with the root's `git ls-tree` lines (mode, object id, name) from which manifests' ids are read.
 */
export async function gitRepoFiles(repoPath: string, sha: string): Promise<RepoFiles & { entries: Map<string, string> }> {
  const entries = new Map<string, string>();
  for (const line of (await git(repoPath, ['ls-tree', sha])).split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) entries.set(line.slice(tab + 1), line);
  }
  const texts = new Map<string, Promise<string | undefined>>();
  const show = batchedShow(repoPath);
  return {
    rootFiles: new Set(entries.keys()),
    entries,
    read(path: string) {
      let text = texts.get(path);
      if (!text) {
        text = show(`${sha}:${path}`);
        texts.set(path, text);
      }
      return text;
    },
  };
}

/**
 * `git show <object>`, with the objects asked for in one turn of the event loop read by one
 * `git cat-file --batch`. Detecting a recipe asks for a dozen files, mostly at once (the nested
 * requirement files, say), and a process per file forked the whole worker each time: with many
 * rollouts on two cores that was a large share of the worker's CPU. What is not a blob (a tree, a
 * name with a newline) is left to `git show`, so the text is the same either way.
 */
function batchedShow(repoPath: string): (object: string) => Promise<string | undefined> {
  const showOne = (object: string) => git(repoPath, ['show', object]).catch(() => undefined);
  let waiting: { object: string; resolve: (text: Promise<string | undefined>) => void }[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    const blobs = await gitBytes(repoPath, ['cat-file', '--batch'], batch.map(({ object }) => `${object}\n`).join('')).then(readBatch, () => undefined);
    batch.forEach(({ object, resolve }, i) => {
      const blob = blobs?.[i];
      resolve(blob === null ? Promise.resolve(undefined) : blob !== undefined ? Promise.resolve(blob) : showOne(object));
    });
  };
  return (object) => {
    if (object.includes('\n')) return showOne(object);
    return new Promise((resolve) => {
      if (waiting.length === 0) setImmediate(() => void flush());
      waiting.push({ object, resolve });
    });
  };
}

const FOUND = /^[0-9a-f]+ (\w+) (\d+)$/;

/** `cat-file --batch` answers in order: a blob's text, null for a missing object, undefined for another type. */
function readBatch(out: Buffer): (string | null | undefined)[] {
  const answers: (string | null | undefined)[] = [];
  for (let at = 0; at < out.length; ) {
    const eol = out.indexOf(10, at);
    if (eol < 0) break;
    const found = FOUND.exec(out.toString('utf8', at, eol));
    at = eol + 1;
    if (!found) {
      answers.push(null); // "<object> missing" (or ambiguous): git show fails on it too
      continue;
    }
    const size = Number(found[2]);
    answers.push(found[1] === 'blob' ? out.toString('utf8', at, at + size) : undefined);
    at += size + 1;
  }
  return answers;
}

/** `git ls-tree` lines (mode, blob id, path) of the manifests at `sha`: what an environment is keyed on. */
export async function manifestBlobs(repoPath: string, sha: string, files: string[], root?: Map<string, string>): Promise<string> {
  // Detected manifests mostly sit at the root, whose listing is at hand; others are asked for.
  if (root && files.every((f) => !f.includes('/'))) return files.map((f) => root.get(f) ?? `missing\t${f}`).join('\n');
  return files.length ? git(repoPath, ['ls-tree', sha, '--', ...files]) : '';
}

/** When the manifests last changed at or before `sha` (the commit's date where they never did): what dependencies resolve as of. */
export async function manifestsDate(repoPath: string, sha: string, files: string[]): Promise<Date> {
  const out = files.length ? (await git(repoPath, ['log', '-1', '--format=%cI', sha, '--', ...files])).trim() : '';
  return new Date(out || (await git(repoPath, ['log', '-1', '--format=%cI', sha])).trim());
}

const roots = new Map<string, Promise<string>>();

/**
 * The first root commit of the history: clones of one repository (and its forks) share it, so an
 * environment built from one clone serves them all. Cached per clone; walking a long history once is enough.
 */
export function rootCommit(repoPath: string, sha: string): Promise<string> {
  let root = roots.get(repoPath);
  if (!root) {
    root = git(repoPath, ['rev-list', '--max-parents=0', sha]).then((out) => out.trim().split('\n').sort()[0]);
    roots.set(repoPath, root);
    root.catch(() => roots.delete(repoPath));
  }
  return root;
}
