import { buildSchema, graphql, GraphQLError } from 'graphql';
import type { FakeComment, FakeCommit, FakePull, FakeRepo, FaultResponse } from './fake-github';

/** The fake's GraphQL endpoint: the part of GitHub's schema the miner asks for, with its errors and pagination rules. */
export interface RateLimitAnswer {
  cost: number;
  limit: number;
  remaining: number;
  resetAt: string;
}

export async function answerGraphql(
  repos: FakeRepo[],
  rateLimit: RateLimitAnswer,
  raw: string,
): Promise<FaultResponse> {
  const { query, variables } = JSON.parse(raw) as { query: string; variables?: Record<string, unknown> };
  const result = await graphql({
    schema: SCHEMA,
    source: query,
    rootValue: root(repos, rateLimit),
    variableValues: variables,
  });
  // GitHub puts an error's type next to its message.
  const errors = result.errors?.map((e) => ({
    type: (e.extensions as { type?: string })?.type,
    path: e.path,
    locations: e.locations,
    message: e.message,
  }));
  return { body: { ...(result.data !== undefined ? { data: result.data } : {}), ...(errors ? { errors } : {}) } };
}

/** Commits from `sha` back along first parents, as far as the fake knows them. */
export function historyOf(repo: FakeRepo, sha: string): FakeCommit[] {
  const history: FakeCommit[] = [];
  for (
    let commit = repo.commits.get(sha);
    commit && history.length < 500;
    commit = repo.commits.get(commit.parents[0] ?? '')
  )
    history.push(commit);
  return history;
}

/** A review's global node id, opaque as GitHub's: which repository, PR and review. */
const reviewId = (repo: FakeRepo, number: number, index: number) =>
  Buffer.from(`PullRequestReview:${repo.owner}/${repo.name}#${number}:${index}`).toString('base64');

function root(repos: FakeRepo[], rateLimit: RateLimitAnswer) {
  return {
    rateLimit: () => rateLimit,
    node: ({ id }: { id: string }) => {
      const m = /^PullRequestReview:([^/]+)\/([^#]+)#(\d+):(\d+)$/.exec(Buffer.from(id, 'base64').toString());
      const repo = m && repos.find((r) => r.owner === m[1] && r.name === m[2]);
      const pull = m && repo?.pulls.find((p) => p.number === Number(m[3]));
      const review = pull && m ? graphPull(repo!, pull).reviewNodes[Number(m[4])] : undefined;
      if (!review)
        throw new GraphQLError(`Could not resolve to a node with the global id of '${id}'`, {
          extensions: { type: 'NOT_FOUND' },
        });
      return review;
    },
    repository: ({ owner, name }: { owner: string; name: string }) => {
      const repo = repos.find((r) => r.owner === owner && r.name === name);
      if (!repo)
        throw new GraphQLError(`Could not resolve to a Repository with the name '${owner}/${name}'.`, {
          extensions: { type: 'NOT_FOUND' },
        });
      return {
        nameWithOwner: `${owner}/${name}`,
        pullRequest: ({ number }: { number: number }) => {
          const pull = repo.pulls.find((p) => p.number === number);
          if (!pull)
            throw new GraphQLError(`Could not resolve to a PullRequest with the number of ${number}.`, {
              extensions: { type: 'NOT_FOUND' },
            });
          return graphPull(repo, pull);
        },
        object: ({ oid }: { oid: string }) => (repo.commits.has(oid) ? graphCommit(repo, oid) : null),
      };
    },
  };
}

const SCHEMA = buildSchema(`
  scalar GitObjectID
  scalar DateTime
  type Query {
    repository(owner: String!, name: String!): Repository
    rateLimit: RateLimit
    node(id: ID!): Node
  }
  interface Node { id: ID! }
  type RateLimit { cost: Int! limit: Int! remaining: Int! resetAt: DateTime! }
  type Repository {
    nameWithOwner: String!
    pullRequest(number: Int!): PullRequest
    object(oid: GitObjectID, expression: String): GitObject
  }
  interface GitObject { oid: GitObjectID! }
  interface Actor { login: String! }
  type User implements Actor { login: String! }
  type Bot implements Actor { login: String! }
  type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! endCursor: String startCursor: String }
  enum PatchStatus { ADDED DELETED RENAMED COPIED MODIFIED CHANGED }
  type PullRequestChangedFile { path: String! additions: Int! deletions: Int! changeType: PatchStatus! }
  type PullRequestChangedFileConnection { totalCount: Int! pageInfo: PageInfo! nodes: [PullRequestChangedFile] }
  type Commit implements GitObject {
    oid: GitObjectID!
    message: String!
    parents(first: Int, after: String): CommitConnection!
    history(first: Int, after: String): CommitHistoryConnection!
  }
  type CommitConnection { totalCount: Int! pageInfo: PageInfo! nodes: [Commit] }
  type CommitHistoryConnection { totalCount: Int! pageInfo: PageInfo! nodes: [Commit] }
  type PullRequestCommit { commit: Commit! }
  type PullRequestCommitConnection { totalCount: Int! pageInfo: PageInfo! nodes: [PullRequestCommit] }
  type IssueComment { author: Actor body: String! }
  type IssueCommentConnection { totalCount: Int! pageInfo: PageInfo! nodes: [IssueComment] }
  type PullRequestReviewComment { author: Actor body: String! }
  type PullRequestReviewCommentConnection { totalCount: Int! pageInfo: PageInfo! nodes: [PullRequestReviewComment] }
  type PullRequestReview implements Node { id: ID! author: Actor body: String! comments(first: Int, after: String): PullRequestReviewCommentConnection! }
  type PullRequestReviewConnection { totalCount: Int! pageInfo: PageInfo! nodes: [PullRequestReview] }
  type Issue { number: Int! title: String! repository: Repository! }
  enum PullRequestTimelineItemsItemType { CROSS_REFERENCED_EVENT ISSUE_COMMENT MERGED_EVENT REFERENCED_EVENT }
  union ReferencedSubject = Issue | PullRequest
  type CrossReferencedEvent { source: ReferencedSubject! willCloseTarget: Boolean! }
  union PullRequestTimelineItems = CrossReferencedEvent
  type PullRequestTimelineItemsConnection { totalCount: Int! pageInfo: PageInfo! nodes: [PullRequestTimelineItems] }
  type IssueConnection { totalCount: Int! pageInfo: PageInfo! nodes: [Issue] }
  type Label { name: String! }
  type LabelConnection { totalCount: Int! pageInfo: PageInfo! nodes: [Label] }
  type PullRequest {
    number: Int!
    title: String!
    body: String!
    merged: Boolean!
    mergedAt: DateTime
    author: Actor
    labels(first: Int, after: String): LabelConnection
    mergeCommit: Commit
    files(first: Int, after: String): PullRequestChangedFileConnection
    commits(first: Int, after: String): PullRequestCommitConnection!
    comments(first: Int, after: String): IssueCommentConnection!
    reviews(first: Int, after: String): PullRequestReviewConnection
    closingIssuesReferences(first: Int, after: String): IssueConnection
    repository: Repository!
    timelineItems(first: Int, after: String, itemTypes: [PullRequestTimelineItemsItemType!]): PullRequestTimelineItemsConnection!
  }
`);

/** GitHub's connection rules: `first` is required and at most 100; cursors are opaque. */
function connection<T>(items: T[], args: { first?: number; after?: string }, name: string) {
  if (args.first === undefined) {
    throw new GraphQLError(
      `You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`,
      { extensions: { type: 'MISSING_PAGINATION_BOUNDARIES' } },
    );
  }
  if (args.first > 100) {
    throw new GraphQLError(
      `Requesting ${args.first} records on the \`${name}\` connection exceeds the \`first\` limit of 100 records.`,
      { extensions: { type: 'EXCESSIVE_PAGINATION' } },
    );
  }
  const start = args.after ? Number(Buffer.from(args.after, 'base64').toString().split(':')[1]) : 0;
  const nodes = items.slice(start, start + args.first);
  const end = start + nodes.length;
  return {
    totalCount: items.length,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: nodes.length ? Buffer.from(`cursor:${start}`).toString('base64') : null,
      endCursor: nodes.length ? Buffer.from(`cursor:${end}`).toString('base64') : null,
    },
    nodes,
  };
}

const actor = (login: string) => ({ __typename: login.endsWith('[bot]') ? 'Bot' : 'User', login });

function graphCommit(repo: FakeRepo, sha: string): Record<string, unknown> {
  const commit = repo.commits.get(sha) ?? { sha, message: '', parents: [] };
  return {
    __typename: 'Commit',
    oid: sha,
    message: commit.message,
    parents: (args: { first?: number; after?: string }) =>
      connection(
        commit.parents.map((p) => graphCommit(repo, p)),
        args,
        'parents',
      ),
    history: (args: { first?: number; after?: string }) =>
      connection(
        historyOf(repo, sha).map((c) => graphCommit(repo, c.sha)),
        args,
        'history',
      ),
  };
}

const CHANGE_TYPES = { added: 'ADDED', modified: 'MODIFIED', removed: 'DELETED', renamed: 'RENAMED' } as const;

function graphPull(repo: FakeRepo, p: FakePull) {
  type Args = { first?: number; after?: string };
  const said = (c: FakeComment) => ({ author: actor(c.user), body: c.body });
  const reviewNodes = (p.reviews ?? []).map((r, i) => ({
    __typename: 'PullRequestReview',
    id: reviewId(repo, p.number, i),
    ...said(r),
    comments: (inner: Args) => connection((r.comments ?? []).map(said), inner, 'comments'),
  }));
  return {
    number: p.number,
    title: p.title,
    body: p.body ?? '',
    merged: p.mergedAt !== null,
    mergedAt: p.mergedAt,
    author: actor(p.user),
    labels: (args: Args) =>
      connection(
        (p.labels ?? []).map((name) => ({ name })),
        args,
        'labels',
      ),
    mergeCommit: p.mergeSha ? graphCommit(repo, p.mergeSha) : null,
    files: (args: Args) =>
      connection(
        p.files.map((f) => ({
          path: f.path,
          additions: f.additions,
          deletions: f.deletions,
          changeType: CHANGE_TYPES[f.status],
        })),
        args,
        'files',
      ),
    commits: (args: Args) =>
      connection(
        p.commits.map((c) => ({ commit: graphCommit(repo, c.sha) })),
        args,
        'commits',
      ),
    comments: (args: Args) => connection((p.comments ?? []).map(said), args, 'comments'),
    reviews: (args: Args) => connection(reviewNodes, args, 'reviews'),
    reviewNodes,
    closingIssuesReferences: (args: Args) =>
      connection(
        (p.closingIssues ?? []).map((number) => ({ number, title: `Issue ${number}` })),
        args,
        'closingIssuesReferences',
      ),
    repository: { nameWithOwner: `${repo.owner}/${repo.name}` },
    timelineItems: (args: Args & { itemTypes?: string[] }) => {
      const events = args.itemTypes && !args.itemTypes.includes('CROSS_REFERENCED_EVENT') ? [] : (p.mentionedIn ?? []);
      return connection(
        events.map((m) => ({
          __typename: 'CrossReferencedEvent',
          willCloseTarget: false,
          source: {
            __typename: m.kind,
            number: m.number,
            title: `#${m.number}`,
            repository: { nameWithOwner: m.repo ?? `${repo.owner}/${repo.name}` },
          },
        })),
        args,
        'timelineItems',
      );
    },
  };
}
