import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../mining/git';
import type { PullRequest } from '../schemas';
import { hasCommit } from './host-repo';

/** `Binary files a/x and b/x differ`: a diff that names a binary change without carrying it (GitHub's API sends these). */
const BINARY_WITHOUT_CONTENT = /^Binary files (?:a\/)?(.+?) and (?:b\/)?(.+?) differ$/m;

/**
 * Why a stage's own inputs cannot make a task, or undefined when they can: its base and merge commits
 * must exist in the clone, and its gold patch must apply to the base. Checked on the host with a
 * throwaway index, so nothing in the clone changes.
 */
export async function stageInputProblem(repoPath: string, pr: PullRequest): Promise<string | undefined> {
  const which = `PR #${pr.number}`;
  if (!(await hasCommit(repoPath, pr.baseSha))) return `the base commit ${pr.baseSha} of ${which} does not exist in ${repoPath}`;
  if (!(await hasCommit(repoPath, pr.mergeSha))) return `the merge commit ${pr.mergeSha} of ${which} does not exist in ${repoPath}`;
  if (!pr.patch.trim()) return `the gold patch of ${which} is empty`;
  const binary = BINARY_WITHOUT_CONTENT.exec(pr.patch);
  if (binary) {
    return `the gold patch of ${which} changes the binary file ${binary[2]} without its content ("Binary files … differ"), so it cannot be replayed; mine the patch with git diff --binary`;
  }
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    await git(repoPath, ['read-tree', pr.baseSha], { env });
    await git(repoPath, ['apply', '--cached', '--check', '--binary', '-'], { env, input: pr.patch });
    return undefined;
  } catch (err) {
    const why = ((err as { stderr?: string }).stderr ?? (err as Error).message).trim().split('\n').slice(0, 6).join('\n');
    return `the gold patch of ${which} does not apply to its base ${pr.baseSha.slice(0, 12)}:\n${why}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
