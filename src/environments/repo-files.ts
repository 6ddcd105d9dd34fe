import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../git';
import { committerDate, listTree, showFile } from './cat-file';
import type { RepoFiles } from './contract';
import { sharedUntilFailure } from '../shared-promise';

/**
 * A repository's files at one commit, read from the host clone with plain git (read-only, no
 * checkout), with the root's `git ls-tree` lines (mode, object id, name) from which manifests' ids are read.
 */
export async function gitRepoFiles(
  repoPath: string,
  sha: string,
): Promise<RepoFiles & { entries: Map<string, string> }> {
  const entries = new Map<string, string>();
  for (const line of (await listTree(repoPath, sha)).split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) entries.set(line.slice(tab + 1), line);
  }
  const texts = new Map<string, Promise<string | undefined>>();
  return {
    rootFiles: new Set(entries.keys()),
    entries,
    read(path: string) {
      // Detection asks for a dozen usual files; one whose top directory is not there needs no git process.
      if (!entries.has(path.split('/')[0])) return Promise.resolve(undefined);
      let text = texts.get(path);
      if (!text) {
        text = showFile(repoPath, `${sha}:${path}`);
        texts.set(path, text);
      }
      return text;
    },
  };
}

/** A checkout's files on disk, read as detection reads a commit's. */
export async function checkoutFiles(dir: string): Promise<RepoFiles> {
  const rootFiles = new Set(await readdir(dir));
  return { rootFiles, read: (path) => readFile(join(dir, path), 'utf8').catch(() => undefined) };
}

/** `git ls-tree` lines (mode, blob id, path) of the manifests at `sha`: what an environment is keyed on. */
export async function manifestBlobs(
  repoPath: string,
  sha: string,
  files: string[],
  root?: Map<string, string>,
): Promise<string> {
  // Detected manifests mostly sit at the root, whose listing is at hand; others are asked for.
  if (root && files.every((f) => !f.includes('/'))) return files.map((f) => root.get(f) ?? `missing\t${f}`).join('\n');
  return files.length ? git(repoPath, ['ls-tree', sha, '--', ...files]) : '';
}

/** When the manifests last changed at or before `sha` (the commit's date where they never did): what dependencies resolve as of. */
export async function manifestsDate(repoPath: string, sha: string, files: string[]): Promise<Date> {
  const out = files.length ? (await git(repoPath, ['log', '-1', '--format=%cI', sha, '--', ...files])).trim() : '';
  return out ? new Date(out) : commitDate(repoPath, sha);
}

/** The commit date of `sha`: the era a stage's toolchain is chosen for. */
export async function commitDate(repoPath: string, sha: string): Promise<Date> {
  const read = await committerDate(repoPath, sha);
  if (read) return read;
  return new Date((await git(repoPath, ['log', '-1', '--format=%cI', sha])).trim());
}

const roots = new Map<string, Promise<string>>();

/**
 * The first root commit of the history: clones of one repository (and its forks) share it, so an
 * environment built from one clone serves them all. Cached per clone; walking a long history once is enough.
 */
export function rootCommit(repoPath: string, sha: string): Promise<string> {
  return sharedUntilFailure(roots, repoPath, () =>
    git(repoPath, ['rev-list', '--max-parents=0', sha]).then((out) => out.trim().split('\n').sort()[0]),
  );
}
