import { stat } from 'node:fs/promises';
import { ChainsmithError } from '../errors';
import { git, GitError } from '../git';

/** A clone that cannot be brought up to date: this run fails for it, with git's reason; the next run tries again. */
class FetchError extends ChainsmithError {}

/**
 * Fetches the clone's remote and says which branch to mine: the remote's (`origin/HEAD`, or
 * `origin/BRANCH`), since a working clone's own branch does not move on fetch; a mirror, whose own
 * branches a fetch updates, has no remote branches and is mined as it is.
 */
export async function fetchClone(
  clone: string,
  opts: { remote?: string; branch?: string } = {},
): Promise<string | undefined> {
  const remote = opts.remote ?? 'origin';
  if (!(await stat(clone).catch(() => undefined))?.isDirectory())
    throw new FetchError(`cannot fetch ${clone}: no such folder`);
  try {
    await git(clone, ['fetch', '--quiet', '--prune', remote]);
  } catch (cause) {
    // git says what is wrong on its fatal: line ("'…' does not appear to be a git repository").
    const stderr = cause instanceof GitError ? cause.stderr : (cause as Error).message;
    const lines = stderr
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const reason =
      lines.find((line) => line.startsWith('fatal:'))?.replace(/^fatal:\s*/, '') ??
      lines[lines.length - 1] ??
      'git fetch failed';
    throw new FetchError(`cannot fetch ${clone} from ${remote}: ${reason}`, { cause });
  }
  const tracking = `refs/remotes/${remote}/${opts.branch ?? 'HEAD'}`;
  const resolved = await git(clone, ['rev-parse', '--verify', '--quiet', tracking]).then(
    () => true,
    () => false,
  );
  return resolved ? tracking : opts.branch;
}
