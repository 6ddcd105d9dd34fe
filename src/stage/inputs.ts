import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../git';
import type { PullRequest } from '../schemas';
import { commitExists } from '../environments/cat-file';

/** `Binary files a/x and b/x differ`: a diff that names a binary change without carrying it (GitHub's API sends these). */
const BINARY_WITHOUT_CONTENT = /^Binary files (?:a\/)?(.+?) and (?:b\/)?(.+?) differ$/m;

/**
 * Stages whose inputs were found good in this process. Commits do not leave a clone, so a good stage
 * stays good: the rollout after gold validation (and every chain through the same PR) skips the four
 * git processes, which cost the worker ~10 ms each to spawn, a burst when dozens of rollouts start.
 */
const good = new Set<string>();
const MAX_GOOD = 100_000;

/**
 * Why a stage's own inputs cannot make a task, or undefined when they can: its base and merge commits
 * must exist in the clone, and its gold patch must apply to the base. Checked on the host with a
 * throwaway index, so nothing in the clone changes.
 */
export async function stageInputProblem(repoPath: string, pr: PullRequest): Promise<string | undefined> {
  const key = createHash('sha256').update(`${repoPath}\0${pr.baseSha}\0${pr.mergeSha}\0${pr.patch}`).digest('hex');
  if (good.has(key)) return undefined;
  const problem = await findProblem(repoPath, pr);
  if (!problem) {
    if (good.size >= MAX_GOOD) good.clear();
    good.add(key);
  }
  return problem;
}

async function findProblem(repoPath: string, pr: PullRequest): Promise<string | undefined> {
  const which = `PR #${pr.number}`;
  if (!(await commitExists(repoPath, pr.baseSha)))
    return `the base commit ${pr.baseSha} of ${which} does not exist in ${repoPath}`;
  if (!(await commitExists(repoPath, pr.mergeSha)))
    return `the merge commit ${pr.mergeSha} of ${which} does not exist in ${repoPath}`;
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
    const why = ((err as { stderr?: string }).stderr ?? (err as Error).message)
      .trim()
      .split('\n')
      .slice(0, 6)
      .join('\n');
    return `the gold patch of ${which} does not apply to its base ${pr.baseSha.slice(0, 12)}:\n${why}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
