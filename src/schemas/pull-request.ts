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

/** One merged pull request, as mined from GitHub or a local clone. */
export const PullRequestSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  body: z.string(),
  /** Every commit message that belongs to the PR: the landing commit and the PR's own commits. */
  messages: z.array(z.string()),
  author: z.string(),
  mergedAt: z.string(),
  landing: z.enum(['merge', 'squash', 'api']),
  baseSha: Sha,
  mergeSha: Sha,
  files: z.array(ChangedFileSchema),
  /** Unified diff base..merge (git diff --binary --full-index). */
  patch: z.string(),
});
export type PullRequest = z.infer<typeof PullRequestSchema>;
