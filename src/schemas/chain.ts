import { z } from 'zod';
import { PullRequestSchema } from './pull-request';

/** 'shares-files': the weak, opt-in link between PRs that edit the same code files; 'code-history': a PR rewrites lines another wrote shortly before (blame). */
export const EdgeKind = z.enum([
  'fixes',
  'regression-of',
  'follow-up',
  'reverts',
  'restores',
  'mentions',
  'shares-files',
  'code-history',
]);
export type EdgeKind = z.infer<typeof EdgeKind>;

/** Where in a PR the words behind an edge stand: which text, and the reference's offsets in it. */
export const EdgeSourceSchema = z.object({
  /** 'cross-reference': GitHub's timeline says the PR was mentioned, without the text at hand. */
  field: z.enum(['title', 'body', 'message', 'comment', 'files', 'cross-reference']),
  /** Which message or comment, for the fields that are lists. */
  index: z.number().int().nonnegative().optional(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});
export type EdgeSource = z.infer<typeof EdgeSourceSchema>;

/**
 * How much the later PR needs the earlier one (shared/DESIGN.md, "What counts as a link"). 'strong': it
 * fixes a defect the earlier one introduced, reverts or restores it, or changes or extends behaviour it
 * added; 'weak': real but thin (deprecate → remove, a typo in its text, a small test or message follow-up).
 */
export const Strength = z.enum(['strong', 'weak']);
export type Strength = z.infer<typeof Strength>;

/** What the link judge (`mine --judge-links`) said of an edge, or why it could not say. */
export const EdgeJudgementSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('judged'), verdict: Strength, reason: z.string(), model: z.string() }),
  z.object({ status: z.literal('not judged'), reason: z.string() }),
]);
export type EdgeJudgement = z.infer<typeof EdgeJudgementSchema>;

/** `from` depends on `to`: `to` must come earlier in a chain. */
export const EdgeSchema = z.object({
  from: z.number().int().positive(),
  to: z.number().int().positive(),
  kind: EdgeKind,
  evidence: z.string(),
  confidence: z.number().min(0).max(1),
  source: EdgeSourceSchema.optional(),
  // Edges mined before strength was known lack these two.
  strength: Strength.optional(),
  /** Why the edge has its strength. */
  strengthWhy: z.string().optional(),
  /** Only on the candidates the link judge was asked about (a verdict of none drops the edge). */
  judgement: EdgeJudgementSchema.optional(),
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
  /** Mean confidence of the links that hold the chain together, in [0, 1]. */
  score: z.number().min(0).max(1).optional(),
  /** The weakest of the links that hold the chain together. */
  strength: Strength.optional(),
});
export type Chain = z.infer<typeof ChainSchema>;
