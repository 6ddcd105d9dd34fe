import { z } from 'zod';
import { PullRequestSchema } from './pull-request';

export const EdgeKind = z.enum(['fixes', 'regression-of', 'follow-up', 'reverts', 'restores', 'mentions']);
export type EdgeKind = z.infer<typeof EdgeKind>;

/** `from` depends on `to`: `to` must come earlier in a chain. */
export const EdgeSchema = z.object({
  from: z.number().int().positive(),
  to: z.number().int().positive(),
  kind: EdgeKind,
  evidence: z.string(),
  confidence: z.number().min(0).max(1),
});
export type Edge = z.infer<typeof EdgeSchema>;

export const RepoSourceSchema = z.object({
  /** Human name, e.g. "demo/tally" or "numpy/numpy". */
  name: z.string().min(1),
  /** Absolute path of a local clone on the sandbox host. */
  path: z.string().min(1),
});
export type RepoSource = z.infer<typeof RepoSourceSchema>;

/** PRs in dependency order: every edge's target comes before its source. */
export const ChainSchema = z.object({
  id: z.string().min(1),
  repo: RepoSourceSchema,
  prs: z.array(PullRequestSchema).min(1),
  edges: z.array(EdgeSchema),
});
export type Chain = z.infer<typeof ChainSchema>;
