import { z } from 'zod';
import { PrCommentSchema, Sha } from '../../../schemas';
import { GitHubPayloadError } from '../../errors';

/** Validates an API answer; a mismatch names the request and the first field that is wrong. */
export function parsePayload<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new GitHubPayloadError(what, `${issue.path.join('.') || '(root)'}: ${issue.message}`, { cause: parsed.error });
}

// ---- REST: only the fields the miner reads; GitHub sends many more. ----

export const RepoPayload = z.object({ full_name: z.string(), default_branch: z.string() });
export type RepoPayload = z.infer<typeof RepoPayload>;

export const PullListItem = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string().nullable(),
  user: z.object({ login: z.string(), type: z.string() }).nullable(),
  labels: z.array(z.object({ name: z.string() })),
  state: z.enum(['open', 'closed']),
  created_at: z.string(),
  updated_at: z.string(),
  merged_at: z.string().nullable(),
  merge_commit_sha: Sha.nullable(),
  base: z.object({ ref: z.string(), sha: Sha }),
  head: z.object({ sha: Sha }),
  html_url: z.string(),
});
export type PullListItem = z.infer<typeof PullListItem>;
export const PullListPage = z.array(PullListItem);

// ---- What the miner keeps of one PR beyond its list entry, from GraphQL or REST. ----

const FileStatus = z.enum(['added', 'modified', 'deleted', 'renamed']);

export const PullDetail = z.object({
  number: z.number().int().positive(),
  /** The list entry's updated_at when this was fetched: a newer one means fetch again. */
  updatedAt: z.string(),
  mergeCommit: z.object({ oid: Sha, message: z.string(), parents: z.array(Sha) }).nullable(),
  files: z.array(
    z.object({
      path: z.string().min(1),
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      status: FileStatus,
    }),
  ),
  commits: z.array(z.object({ oid: Sha, message: z.string() })),
  comments: z.array(PrCommentSchema),
  closingIssues: z.array(z.number().int().positive()),
  /** Same-repository PRs that mention this one, by GitHub's timeline. */
  mentionedBy: z.array(z.number().int().positive()).default([]),
  /** REST answers (no token) leave out comments and reviews: a later run with a token asks again. */
  source: z.enum(['graphql', 'rest']).optional(),
  /** A rebase merge lands the PR's commits one by one: its base is that many commits back. */
  rebaseBase: Sha.nullable().optional(),
});
export type PullDetail = z.infer<typeof PullDetail>;

// ---- GraphQL answers. ----

const PageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() });
const Actor = z.object({ login: z.string() }).nullable();

export const GraphFile = z.object({
  path: z.string().min(1),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  changeType: z.enum(['ADDED', 'DELETED', 'RENAMED', 'COPIED', 'MODIFIED', 'CHANGED']),
});
export const GraphCommit = z.object({ commit: z.object({ oid: Sha, message: z.string() }) });
export const GraphComment = z.object({ author: Actor, body: z.string() });

/** A timeline's CROSS_REFERENCED_EVENT: which issue or PR, in which repository, mentioned this one. */
const GraphCrossReference = z.object({
  source: z
    .object({
      __typename: z.string(),
      number: z.number().int().positive().optional(),
      repository: z.object({ nameWithOwner: z.string() }).optional(),
    })
    .nullable(),
});

export const connectionOf = <T extends z.ZodType>(node: T) => z.object({ pageInfo: PageInfo, nodes: z.array(node) });
/** A review with its first page of inline comments; `id` reads the rest (node(id:)). */
export const GraphReview = z.object({
  id: z.string(),
  author: Actor,
  body: z.string(),
  comments: connectionOf(GraphComment),
});

export const GraphPull = z.object({
  number: z.number().int().positive(),
  mergeCommit: z
    .object({ oid: Sha, message: z.string(), parents: z.object({ nodes: z.array(z.object({ oid: Sha })) }) })
    .nullable(),
  // GitHub answers null for the files of PRs too large to list.
  files: connectionOf(GraphFile).nullable(),
  commits: connectionOf(GraphCommit),
  comments: connectionOf(GraphComment),
  reviews: connectionOf(GraphReview).nullable(),
  closingIssuesReferences: z.object({ nodes: z.array(z.object({ number: z.number().int().positive() })) }).nullable(),
  timelineItems: z.object({ nodes: z.array(GraphCrossReference) }).nullable(),
});
export type GraphPull = z.infer<typeof GraphPull>;

export const GraphHistory = z.object({
  history: z.object({
    nodes: z.array(z.object({ oid: Sha, parents: z.object({ nodes: z.array(z.object({ oid: Sha })) }) })),
  }),
});
export type GraphFile = z.infer<typeof GraphFile>;
export type GraphCommit = z.infer<typeof GraphCommit>;
export type GraphComment = z.infer<typeof GraphComment>;
export type GraphReview = z.infer<typeof GraphReview>;
