import { resolve } from 'node:path';
import { changedFilesOf } from '../../src/mining/landings/changed-files';
import { readLocalPullRequests } from '../../src/mining/landings/local-git';
import { withLocalPatches } from '../../src/mining/landings/local-patches';
import { linkPullRequests, type LinkOptions } from '../../src/mining/links/references';
import type { ChangedFile, Edge, PullRequest, PullRequestRecord } from '../../src/schemas';

/** Every PR of the branch with its patch: simple, and fine for the small repositories tests make. */
export async function mineLocalRepo(repoPath: string, opts: { branch?: string } = {}): Promise<PullRequest[]> {
  const { prs } = await readLocalPullRequests(repoPath, opts);
  return withLocalPatches(resolve(repoPath), prs);
}

/** The edges of `linkPullRequests`, without the tally. */
export function extractEdges(prs: readonly PullRequestRecord[], opts: LinkOptions = {}): Edge[] {
  return linkPullRequests(prs, opts).edges;
}

/** The files one change base..merge touched, with line counts, status and kind. */
export async function changedFiles(repoPath: string, base: string, merge: string): Promise<ChangedFile[]> {
  return (await changedFilesOf(repoPath, [{ base, merge }])).get(merge) ?? [];
}
