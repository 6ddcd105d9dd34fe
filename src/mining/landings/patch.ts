import { git } from '../../git';

/**
 * The unified diff base..merge. Explicit prefixes and no external diff: a user's diff.noprefix or
 * diff.external must not change the patch that later stages apply.
 */
export function gitPatch(repoPath: string, base: string, merge: string): Promise<string> {
  return git(repoPath, [
    'diff',
    '--binary',
    '--full-index',
    '-M',
    '--no-color',
    '--no-ext-diff',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--end-of-options',
    base,
    merge,
    '--',
  ]);
}
