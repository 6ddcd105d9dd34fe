import { z } from 'zod';
import { PullRequestSchema, type PullRequest, type PullRequestRecord } from '../../../schemas';
import { GitHubPayloadError } from '../../errors';
import { splitPatch } from '../patch-split';
import type { GitHubContext } from './context';
import { explainRequestError } from './request-errors';

const CachedPatch = z.object({ version: z.literal(1), patch: z.string() });

/**
 * Patches base...merge from GitHub's compare endpoint, one request per PR and cached for good (two
 * SHAs name a diff forever). Only chain members are asked for. Binary files come without content,
 * which is one reason to mine with --clone where a clone exists.
 */
export async function apiPatches(ctx: GitHubContext, prs: readonly PullRequestRecord[]): Promise<PullRequest[]> {
  const full: PullRequest[] = [];
  for (const [index, pr] of prs.entries()) {
    const key = `patches/${pr.baseSha}-${pr.mergeSha}`;
    let patch = (await ctx.cache.read(key, CachedPatch))?.patch;
    if (patch !== undefined) ctx.cache.hit(patch);
    else {
      const what = `the patch of PR #${pr.number} (compare ${pr.baseSha.slice(0, 12)}...${pr.mergeSha.slice(0, 12)})`;
      try {
        const response = await ctx.client.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
          owner: ctx.owner,
          repo: ctx.name,
          basehead: `${pr.baseSha}...${pr.mergeSha}`,
          mediaType: { format: 'diff' },
        });
        patch = response.data as unknown as string;
      } catch (error) {
        throw explainRequestError(error, ctx, what, 'item');
      }
      if (typeof patch !== 'string') throw new GitHubPayloadError(what, `expected a diff as text, got ${typeof patch}`);
      await ctx.cache.write(key, { version: 1, patch });
    }
    ctx.onProgress?.({ phase: 'fetching patches', done: index + 1, total: prs.length });
    full.push(PullRequestSchema.parse({ ...pr, patch, ...splitPatch(patch) }));
  }
  return full;
}
