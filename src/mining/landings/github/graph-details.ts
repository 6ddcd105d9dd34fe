import type { PrComment } from '../../../schemas';
import { RepositoryNotFoundError } from '../../errors';
import type { GitHubContext } from './context';
import {
  connectionOf,
  GraphComment,
  GraphCommit,
  GraphFile,
  GraphPull,
  GraphReview,
  parsePayload,
  type PullDetail,
} from './payloads';
import { explainRequestError, graphErrorTypes } from './request-errors';

/** The connections of a PR that may need more than one page, with page sizes and what each node holds. */
const CONNECTIONS = {
  files: { first: 100, node: 'path additions deletions changeType', schema: GraphFile },
  commits: { first: 100, node: 'commit { oid message }', schema: GraphCommit },
  comments: { first: 50, node: 'author { login } body', schema: GraphComment },
  // GraphQL cost grows with nested page sizes: 20 reviews of 10 comments keeps a 50-PR query cheap;
  // a review with more inline comments has them read through its id (REVIEW_COMMENTS).
  reviews: {
    first: 20,
    node: 'id author { login } body comments(first: 10) { pageInfo { hasNextPage endCursor } nodes { author { login } body } }',
    schema: GraphReview,
  },
} as const;

/** A review's inline comments past its first page, read through the review's node id. */
const REVIEW_COMMENTS = { first: 100, node: 'author { login } body' };
type Connection = keyof typeof CONNECTIONS;

/** A PR with more than this many pages of one connection is read only that far. */
const MAX_PAGES = 30;

const selection = (connection: Connection, after = '') =>
  `${connection}(first: ${CONNECTIONS[connection].first}${after}) { pageInfo { hasNextPage endCursor } nodes { ${CONNECTIONS[connection].node} } }`;

const FRAGMENT = `fragment PrDetail on PullRequest {
  number
  mergeCommit { oid message parents(first: 2) { nodes { oid } } }
  ${(Object.keys(CONNECTIONS) as Connection[]).map((c) => selection(c)).join('\n  ')}
  closingIssuesReferences(first: 20) { nodes { number } }
  timelineItems(first: 30, itemTypes: [CROSS_REFERENCED_EVENT]) {
    nodes { ... on CrossReferencedEvent { source { __typename ... on PullRequest { number repository { nameWithOwner } } } } }
  }
}`;

type Detail = Omit<PullDetail, 'updatedAt'>;

/** A PR read as far as its first pages, with some connection that has more. */
export type Unfinished = GraphPull;

/**
 * The first pages of many PRs' details in one GraphQL query (one aliased `pullRequest` per PR):
 * `details` for the PRs that fit, `unfinished` the PRs with more than a page of some connection,
 * for `finishDetails` to complete with the unfinished PRs of other batches.
 */
export async function graphDetails(
  ctx: GitHubContext,
  numbers: number[],
  opts: { retries?: number } = {},
): Promise<{ details: Map<number, Detail>; unfinished: Unfinished[] }> {
  const query = `query PullDetails($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    ${numbers.map((n) => `pr${n}: pullRequest(number: ${n}) { ...PrDetail }`).join('\n    ')}
  }
}
${FRAGMENT}`;
  const what = `GraphQL details of PRs #${numbers[0]}..#${numbers[numbers.length - 1]}`;
  const repository = await queryRepository(ctx, query, what, {}, opts.retries);
  const pulls: GraphPull[] = [];
  for (const number of numbers) {
    const raw = repository[`pr${number}`];
    // A PR deleted since it was listed: GitHub answers null with a NOT_FOUND error for its alias.
    if (raw === null || raw === undefined) continue;
    pulls.push(parsePayload(GraphPull, raw, `GraphQL details of PR #${number}`));
  }
  const unfinished = pulls.filter((pull) => unreadOf([pull]).length > 0);
  const details = new Map(
    pulls.filter((pull) => !unfinished.includes(pull)).map((pull) => [pull.number, normalize(ctx, pull)]),
  );
  return { details, unfinished };
}

/**
 * The details of unfinished PRs, their connections read to the end. Each round asks for the next page
 * of every connection still unfinished, all PRs together (an alias each, UNREAD_PER_QUERY a query),
 * so long discussions and large PRs cost as many queries as the longest connection has pages, not
 * a query per page per connection per PR.
 */
export async function finishDetails(ctx: GitHubContext, pulls: Unfinished[]): Promise<Map<number, Detail>> {
  let unread = unreadOf(pulls);
  for (let page = 1; unread.length > 0 && page < MAX_PAGES; page++) {
    const next: Unread[] = [];
    for (let i = 0; i < unread.length; i += UNREAD_PER_QUERY)
      next.push(...(await nextPages(ctx, unread.slice(i, i + UNREAD_PER_QUERY))));
    unread = next;
  }
  return new Map(pulls.map((pull) => [pull.number, normalize(ctx, pull)]));
}

async function queryRepository(
  ctx: GitHubContext,
  query: string,
  what: string,
  variables: Record<string, unknown> = {},
  retries?: number,
): Promise<Record<string, unknown>> {
  return (await queryData(ctx, query, what, variables, retries)).repository!;
}

/** A query's data, whose `repository` is there (else RepositoryNotFoundError); some aliases not found is an answer. */
async function queryData(
  ctx: GitHubContext,
  query: string,
  what: string,
  variables: Record<string, unknown> = {},
  retries?: number,
): Promise<{ repository?: Record<string, unknown> | null } & Record<string, unknown>> {
  let data: { repository?: Record<string, unknown> | null } & Record<string, unknown>;
  try {
    data = await ctx.client.graphql(query, {
      owner: ctx.owner,
      name: ctx.name,
      ...variables,
      ...(retries !== undefined ? { request: { retries } } : {}),
    });
  } catch (error) {
    const types = graphErrorTypes(error);
    // Some PRs of the batch not found is an answer, not a failure; anything else is.
    if (!types || types.some((type) => type !== 'NOT_FOUND')) throw explainRequestError(error, ctx, what);
    data = (error as { data?: typeof data }).data ?? {};
  }
  if (!data.repository)
    throw new RepositoryNotFoundError(
      `GitHub has no repository ${ctx.owner}/${ctx.name} at ${ctx.baseUrl}, or the token cannot see it`,
    );
  return data;
}

/** A connection of one PR that has another page, and the page read so far; or a review's inline comments. */
type Unread =
  | { pull: GraphPull; connection: Connection; after: string }
  | { pull: GraphPull; review: GraphReview; after: string };

/** Aliased connections per query: a reviews page with its comments is 21 of GitHub's requests, so 100 stay near 20 points. */
const UNREAD_PER_QUERY = 100;

const nextCursor = (page: { pageInfo: { hasNextPage: boolean; endCursor?: string | null } } | null | undefined) =>
  page?.pageInfo.hasNextPage && page.pageInfo.endCursor ? page.pageInfo.endCursor : undefined;

function unreadOf(pulls: GraphPull[]): Unread[] {
  return pulls.flatMap((pull) => [
    ...(Object.keys(CONNECTIONS) as Connection[]).flatMap((connection) => {
      const after = nextCursor(pull[connection]);
      return after ? [{ pull, connection, after }] : [];
    }),
    ...reviewsUnread(pull, pull.reviews?.nodes ?? []),
  ]);
}

function reviewsUnread(pull: GraphPull, reviews: GraphReview[]): Unread[] {
  return reviews.flatMap((review) => {
    const after = nextCursor(review.comments);
    return after ? [{ pull, review, after }] : [];
  });
}

/**
 * Appends the next page of each connection to its PR (a review's inline comments to the review);
 * returns those with yet another page, and the inline comments of reviews a page brought that have more.
 */
async function nextPages(ctx: GitHubContext, unread: Unread[]): Promise<Unread[]> {
  const after = (u: Unread) => `, after: ${JSON.stringify(u.after)}`;
  const aliases = unread.map((u, i) =>
    'connection' in u
      ? {
          inRepository: true,
          text: `m${i}: pullRequest(number: ${u.pull.number}) { ${selection(u.connection, after(u))} }`,
        }
      : {
          inRepository: false,
          text: `m${i}: node(id: ${JSON.stringify(u.review.id)}) { ... on PullRequestReview { comments(first: ${REVIEW_COMMENTS.first}${after(u)}) { pageInfo { hasNextPage endCursor } nodes { ${REVIEW_COMMENTS.node} } } } }`,
        },
  );
  const query = `query MorePages($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    __typename
    ${aliases.flatMap((a) => (a.inRepository ? [a.text] : [])).join('\n    ')}
  }
  ${aliases.flatMap((a) => (a.inRepository ? [] : [a.text])).join('\n  ')}
}`;
  const what = `GraphQL pages past the first of PRs #${[...new Set(unread.map((u) => u.pull.number))].join(', #')}`;
  const data = await queryData(ctx, query, what);
  const next: Unread[] = [];
  unread.forEach((u, i) => {
    const answer = ('connection' in u ? data.repository![`m${i}`] : data[`m${i}`]) as
      | Record<string, unknown>
      | null
      | undefined;
    // Deleted since the first page: what was read stands.
    if (!answer) return;
    if ('review' in u) {
      const more = parsePayload(
        connectionOf(GraphComment),
        answer.comments,
        `GraphQL inline comments of a review of PR #${u.pull.number}`,
      );
      u.review.comments.nodes.push(...more.nodes);
      const cursor = nextCursor(more);
      if (cursor) next.push({ ...u, after: cursor });
      return;
    }
    const more = parsePayload(
      connectionOf(CONNECTIONS[u.connection].schema),
      answer[u.connection],
      `GraphQL ${u.connection} of PR #${u.pull.number}`,
    );
    (u.pull[u.connection]!.nodes as unknown[]).push(...more.nodes);
    const cursor = nextCursor(more);
    if (cursor) next.push({ ...u, after: cursor });
    if (u.connection === 'reviews') next.push(...reviewsUnread(u.pull, more.nodes as GraphReview[]));
  });
  return next;
}

const STATUS = {
  ADDED: 'added',
  COPIED: 'added',
  DELETED: 'deleted',
  RENAMED: 'renamed',
  MODIFIED: 'modified',
  CHANGED: 'modified',
} as const;

function normalize(ctx: GitHubContext, pull: GraphPull): Detail {
  const files = pull.files?.nodes ?? [];
  const commits = pull.commits.nodes;
  const comments = pull.comments.nodes;
  const reviews = pull.reviews?.nodes ?? [];
  const said = (kind: PrComment['kind'], c: GraphComment): PrComment => ({
    kind,
    author: c.author?.login ?? 'ghost',
    body: c.body,
  });
  return {
    number: pull.number,
    mergeCommit: pull.mergeCommit && {
      oid: pull.mergeCommit.oid,
      message: pull.mergeCommit.message,
      parents: pull.mergeCommit.parents.nodes.map((p) => p.oid),
    },
    files: files.map((f) => ({
      path: f.path,
      additions: f.additions,
      deletions: f.deletions,
      status: STATUS[f.changeType],
    })),
    commits: commits.map((c) => c.commit),
    comments: [
      ...comments.map((c) => said('comment', c)),
      ...reviews.flatMap((r) => [
        ...(r.body.trim() ? [said('review', r)] : []),
        ...r.comments.nodes.map((c) => said('review-comment', c)),
      ]),
    ],
    closingIssues: (pull.closingIssuesReferences?.nodes ?? []).map((issue) => issue.number),
    mentionedBy: [
      ...new Set(
        (pull.timelineItems?.nodes ?? [])
          .map((event) => event.source)
          .filter(
            (source) =>
              source?.__typename === 'PullRequest' &&
              source.repository?.nameWithOwner.toLowerCase() === `${ctx.owner}/${ctx.name}`.toLowerCase(),
          )
          .map((source) => source?.number as number),
      ),
    ],
  };
}
