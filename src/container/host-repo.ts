import { join } from 'node:path';
import { StageError } from '../errors';
import { git } from '../git';

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
