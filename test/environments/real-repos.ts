import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { FetchContext, RepoFiles } from '../../src/environments/contract';

/** The bundles of real repositories (../shared/repos from the project root); absent on some machines. */
export const REPOS_DIR = resolve(__dirname, '../../../shared/repos');

const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

/** A clone of a bundle with its pull refs, or undefined (and a message saying why) where the bundle is absent. */
export function cloneBundle(name: string): string | undefined {
  const bundle = join(REPOS_DIR, `${name}.bundle`);
  if (!existsSync(bundle)) {
    console.warn(`skipping: ${bundle} is absent (the real repositories live in ../shared/repos)`);
    return undefined;
  }
  const dir = join(mkdtempSync(join(tmpdir(), 'chainsmith-real-')), name);
  git(tmpdir(), ['clone', '-q', bundle, dir]);
  git(dir, ['fetch', '-q', bundle, '+refs/pull/*:refs/pull/*']);
  return dir;
}

/** A detached work tree of `repo` at `sha` (the host checkout a fetcher is given). */
export function checkoutAt(repo: string, sha: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'chainsmith-src-'));
  git(repo, ['worktree', 'add', '-q', '--detach', dir, sha]);
  return dir;
}

/** RepoFiles of a commit, read with git. */
export function repoFilesAt(repo: string, sha: string): RepoFiles {
  const rootFiles = new Set(git(repo, ['ls-tree', '--name-only', sha]).split('\n').filter(Boolean));
  return {
    rootFiles,
    read: async (path) => {
      try {
        return git(repo, ['show', `${sha}:${path}`]);
      } catch {
        return undefined;
      }
    },
  };
}

export function fetchContext(srcDir: string, asOf: Date): FetchContext & { lines: string[] } {
  const lines: string[] = [];
  return { srcDir, depsDir: mkdtempSync(join(tmpdir(), 'chainsmith-deps-')), asOf, log: (l) => lines.push(l), signal: new AbortController().signal, lines };
}

export function commitDate(repo: string, sha: string): Date {
  return new Date(git(repo, ['log', '-1', '--format=%cI', sha]).trim());
}

export function hostHas(tool: string): boolean {
  try {
    execFileSync(tool, tool === 'go' ? ['version'] : ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
