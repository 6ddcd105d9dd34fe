import { z } from 'zod';
import { Sha } from '../../../schemas';
import type { GitHubContext } from './context';
import { GraphHistory, parsePayload, type PullDetail } from './payloads';
import { explainRequestError } from './request-errors';

type Detail = Omit<PullDetail, 'updatedAt'>;

/**
 * GitHub's "rebase and merge" replays the PR's commits onto the branch; the merge SHA is the last of
 * them and has one parent, like a squash. It differs from a squash in carrying the PR's last
 * commit message unchanged.
 */
export function isRebaseMerge(detail: Detail): boolean {
  const last = detail.commits[detail.commits.length - 1];
  return (
    detail.mergeCommit?.parents.length === 1 &&
    detail.commits.length > 1 &&
    detail.mergeCommit.message.trim() === last.message.trim()
  );
}

/** The commit `count` first parents back, if the commits on the way form one line; else null. */
function baseOf(history: { oid: string; parent?: string }[], count: number): string | null {
  for (let i = 0; i < count; i++) {
    if (!history[i] || !history[i + 1] || history[i].parent !== history[i + 1].oid) return null;
  }
  return history[count]?.oid ?? null;
}

const BATCH = 50;
const RestHistory = z.array(z.object({ sha: Sha, parents: z.array(z.object({ sha: Sha })) }));

/** Where each rebase-merged PR's replayed commits start (null where the history is not one line). */
export async function rebaseBases(ctx: GitHubContext, details: Detail[]): Promise<Map<number, string | null>> {
  const bases = new Map<number, string | null>();
  for (let i = 0; i < details.length; i += BATCH) {
    const batch = details.slice(i, i + BATCH);
    const histories = ctx.hasToken ? await graphHistories(ctx, batch) : await restHistories(ctx, batch);
    for (const detail of batch)
      bases.set(detail.number, baseOf(histories.get(detail.number) ?? [], detail.commits.length));
  }
  return bases;
}

async function graphHistories(
  ctx: GitHubContext,
  batch: Detail[],
): Promise<Map<number, { oid: string; parent?: string }[]>> {
  const fields = batch.map(
    (d) =>
      `c${d.number}: object(oid: "${d.mergeCommit?.oid}") { ... on Commit { history(first: ${d.commits.length + 1}) { nodes { oid parents(first: 1) { nodes { oid } } } } } }`,
  );
  const query = `query RebaseBases($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { ${fields.join(' ')} } }`;
  const what = 'GraphQL history of rebase-merged PRs';
  let data: { repository: Record<string, unknown> };
  try {
    data = await ctx.client.graphql(query, { owner: ctx.owner, name: ctx.name });
  } catch (error) {
    throw explainRequestError(error, ctx, what);
  }
  const histories = new Map<number, { oid: string; parent?: string }[]>();
  for (const d of batch) {
    const commit = parsePayload(GraphHistory, data.repository[`c${d.number}`], `${what} (#${d.number})`);
    histories.set(
      d.number,
      commit.history.nodes.map((n) => ({ oid: n.oid, parent: n.parents.nodes[0]?.oid })),
    );
  }
  return histories;
}

async function restHistories(
  ctx: GitHubContext,
  batch: Detail[],
): Promise<Map<number, { oid: string; parent?: string }[]>> {
  const histories = new Map<number, { oid: string; parent?: string }[]>();
  for (const d of batch) {
    const what = `GET /repos/${ctx.owner}/${ctx.name}/commits?sha=${d.mergeCommit?.oid}`;
    try {
      const response = await ctx.client.request('GET /repos/{owner}/{repo}/commits', {
        owner: ctx.owner,
        repo: ctx.name,
        sha: d.mergeCommit?.oid,
        per_page: d.commits.length + 1,
      });
      const commits = parsePayload(RestHistory, response.data, what);
      histories.set(
        d.number,
        commits.map((c) => ({ oid: c.sha, parent: c.parents[0]?.sha })),
      );
    } catch (error) {
      throw explainRequestError(error, ctx, what, 'item');
    }
  }
  return histories;
}
