import { PullRequestSchema, type PullRequest, type PullRequestRecord } from '../../schemas';
import { GitError } from '../../git';
import { MiningError } from '../errors';
import { gitPatch } from './patch';
import { splitPatch } from './patch-split';

/** Adds to each record its patch base..merge from a local clone, split into code and test parts. */
export async function withLocalPatches(repoPath: string, prs: readonly PullRequestRecord[]): Promise<PullRequest[]> {
  const full: PullRequest[] = [];
  for (const pr of prs) {
    let patch: string;
    try {
      patch = await gitPatch(repoPath, pr.baseSha, pr.mergeSha);
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      throw new MiningError(
        `the clone at ${repoPath} lacks PR #${pr.number}'s commits ${pr.baseSha.slice(0, 12)}..${pr.mergeSha.slice(0, 12)}; fetch them (git fetch origin) and mine again`,
        { cause: error },
      );
    }
    full.push(PullRequestSchema.parse({ ...pr, patch, ...splitPatch(patch) }));
  }
  return full;
}
