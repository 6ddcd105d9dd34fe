import { join } from 'node:path';
import { StageError } from '../errors';
import { git } from '../mining/git';
import type { Layout } from './detect-recipe';

/**
 * Questions about a stage's repository, answered on the sandbox host from its clone with plain git
 * (read-only), before any container starts.
 */
const objectDirs = new Map<string, string>();

export async function objectsDir(repoPath: string): Promise<string> {
  const known = objectDirs.get(repoPath);
  if (known) return known;
  try {
    const common = (await git(repoPath, ['rev-parse', '--path-format=absolute', '--git-common-dir'])).trim();
    objectDirs.set(repoPath, join(common, 'objects'));
    return join(common, 'objects');
  } catch (cause) {
    throw new StageError(`the repository ${repoPath} is not a git clone on this host`, { cause });
  }
}

export async function hasCommit(repoPath: string, sha: string): Promise<boolean> {
  return git(repoPath, ['cat-file', '-e', `${sha}^{commit}`]).then(
    () => true,
    () => false,
  );
}

/**
 * The names at the root of `sha`'s tree, package.json's text where there is one, and the root's
 * `git ls-tree` lines (mode, object id, name), from which the root manifests' ids are read.
 */
export async function rootLayout(repoPath: string, sha: string): Promise<Layout & { entries: Map<string, string> }> {
  const entries = new Map<string, string>();
  for (const line of (await git(repoPath, ['ls-tree', sha])).split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) entries.set(line.slice(tab + 1), line);
  }
  const rootFiles = new Set(entries.keys());
  const packageJson = rootFiles.has('package.json') ? await git(repoPath, ['show', `${sha}:package.json`]).catch(() => undefined) : undefined;
  return { rootFiles, packageJson, entries };
}

/** `git ls-tree` lines (mode, blob id, path) of the manifests at `sha`: what an environment is keyed on. */
export async function manifestBlobs(repoPath: string, sha: string, files: string[], root?: Map<string, string>): Promise<string> {
  // Detected manifests sit at the root, whose listing is at hand; a configured one may be deeper.
  if (root && files.every((f) => !f.includes('/'))) return files.map((f) => root.get(f) ?? `missing\t${f}`).join('\n');
  return files.length ? git(repoPath, ['ls-tree', sha, '--', ...files]) : '';
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
