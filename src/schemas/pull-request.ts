import { z } from 'zod';

export const Sha = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-hex-digit commit SHA');

export const FileKind = z.enum(['code', 'test', 'other']);
export type FileKind = z.infer<typeof FileKind>;

export const ChangedFileSchema = z.object({
  path: z.string().min(1),
  kind: FileKind,
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  binary: z.boolean().default(false),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;

/** A review, review comment or conversation comment on a PR (only the GitHub API has these). */
export const PrCommentSchema = z.object({
  kind: z.enum(['comment', 'review', 'review-comment']),
  author: z.string(),
  body: z.string(),
});
export type PrComment = z.infer<typeof PrCommentSchema>;

/**
 * How a PR reached the branch: a merge commit, a squash commit, through the GitHub API ('api'),
 * or by hand ('manual': found only because the clone's refs/pull/N/head is on the branch).
 */
export const Landing = z.enum(['merge', 'squash', 'rebase', 'api', 'manual']);

/** Everything mined about a merged PR except its patch, which is only fetched for chain members. */
export const PullRequestRecordSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string(),
  /** Every commit message that belongs to the PR: the landing commit and the PR's own commits. */
  messages: z.array(z.string()),
  author: z.string(),
  mergedAt: z.string(),
  landing: Landing,
  baseSha: Sha,
  mergeSha: Sha,
  files: z.array(ChangedFileSchema),
  // Fields below came later; old chain files lack them, so they stay optional.
  headSha: Sha.optional(),
  /** SHAs of the PR's own commits, so that "This reverts commit <sha>" can name a PR. */
  commitShas: z.array(Sha).optional(),
  /** GitHub's own word (API) that the author is a bot account. */
  authorIsBot: z.boolean().optional(),
  labels: z.array(z.string()).optional(),
  comments: z.array(PrCommentSchema).optional(),
  /** PRs of the same repository that GitHub says mention this one (its timeline's cross-references; API only). */
  mentionedBy: z.array(z.number().int().positive()).optional(),
  /** Issues GitHub links as closed by this PR (API only). */
  closingIssues: z.array(z.number().int().positive()).optional(),
  /** How GitHub merged it, where the API tells. */
  mergeMethod: z.enum(['merge', 'squash', 'rebase']).optional(),
  url: z.string().optional(),
  /** Whether the PR changes a test file, or (from a clone) the unit tests inside its code: a stage without either gives the judge no test to run. */
  changesTests: z.boolean().optional(),
});
export type PullRequestRecord = z.infer<typeof PullRequestRecordSchema>;

/** One merged pull request, as mined from GitHub or a local clone, with its patch. */
export const PullRequestSchema = PullRequestRecordSchema.extend({
  /** Unified diff base..merge (git diff --binary --full-index). */
  patch: z.string(),
  /** The patch split in two: the sections of test files, and all the others. */
  codePatch: z.string().optional(),
  testPatch: z.string().optional(),
});
export type PullRequest = z.infer<typeof PullRequestSchema>;
