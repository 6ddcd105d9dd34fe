import { z } from 'zod';
import { Sha, type PrComment } from '../../../schemas';
import type { GitHubContext } from './context';
import { parsePayload, type PullDetail, type PullListItem } from './payloads';
import { explainRequestError } from './request-errors';

const RestFile = z.object({
  filename: z.string().min(1),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  status: z.enum(['added', 'removed', 'modified', 'renamed', 'copied', 'changed', 'unchanged']),
});
const RestCommit = z.object({
  sha: Sha,
  commit: z.object({ message: z.string() }),
  parents: z.array(z.object({ sha: Sha })),
});
const RestComment = z.object({ user: z.object({ login: z.string() }).nullable(), body: z.string().nullable() });

const STATUS = {
  added: 'added',
  copied: 'added',
  removed: 'deleted',
  renamed: 'renamed',
  modified: 'modified',
  changed: 'modified',
  unchanged: 'modified',
} as const;

type Detail = Omit<PullDetail, 'updatedAt'>;

/**
 * One PR's details through REST, a few requests per PR: the way without a token (GitHub's GraphQL
 * API needs one). Comments and reviews cost three more requests each PR, so they are opt-in.
 */
export async function restDetail(
  ctx: GitHubContext,
  item: PullListItem,
  opts: { comments?: boolean } = {},
): Promise<Detail> {
  const base = { owner: ctx.owner, repo: ctx.name, pull_number: item.number, per_page: 100 };
  const list = async <T>(route: string, schema: z.ZodType<T>, params: Record<string, unknown> = base): Promise<T[]> => {
    const what = route.replace(/\{(\w+)\}/g, (_, key: string) => String(params[key]));
    try {
      return parsePayload(z.array(schema), await ctx.client.paginate(route, params), what);
    } catch (error) {
      throw explainRequestError(error, ctx, what, 'item');
    }
  };
  const files = await list('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', RestFile);
  const commits = await list('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', RestCommit);
  let mergeCommit: Detail['mergeCommit'] = null;
  if (item.merge_commit_sha) {
    const what = `GET /repos/${ctx.owner}/${ctx.name}/commits/${item.merge_commit_sha}`;
    try {
      const response = await ctx.client.request('GET /repos/{owner}/{repo}/commits/{ref}', {
        owner: ctx.owner,
        repo: ctx.name,
        ref: item.merge_commit_sha,
      });
      const commit = parsePayload(RestCommit, response.data, what);
      mergeCommit = { oid: commit.sha, message: commit.commit.message, parents: commit.parents.map((p) => p.sha) };
    } catch (error) {
      throw explainRequestError(error, ctx, what, 'item');
    }
  }
  const comments: PrComment[] = [];
  if (opts.comments) {
    const said = (kind: PrComment['kind']) => (c: z.infer<typeof RestComment>) => ({
      kind,
      author: c.user?.login ?? 'ghost',
      body: c.body ?? '',
    });
    const issue = { owner: ctx.owner, repo: ctx.name, issue_number: item.number, per_page: 100 };
    comments.push(
      ...(await list('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', RestComment, issue)).map(
        said('comment'),
      ),
    );
    comments.push(
      ...(await list('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', RestComment))
        .filter((r) => r.body)
        .map(said('review')),
    );
    comments.push(
      ...(await list('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', RestComment)).map(
        said('review-comment'),
      ),
    );
  }
  return {
    number: item.number,
    mergeCommit,
    files: files.map((f) => ({
      path: f.filename,
      additions: f.additions,
      deletions: f.deletions,
      status: STATUS[f.status],
    })),
    commits: commits.map((c) => ({ oid: c.sha, message: c.commit.message })),
    comments,
    closingIssues: [],
    mentionedBy: [],
  };
}
