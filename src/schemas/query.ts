import { z } from 'zod';

/** The paper's four steps for a stage query; the agent sees them rendered as one text. */
export const QueryPartsSchema = z.object({
  intent: z.string().min(1).describe('Core intent: the problem or goal and why it matters, in behavioural terms'),
  locus: z.string().min(1).describe('Conceptual locus: which part of the system is concerned, described conceptually'),
  logic: z
    .string()
    .min(1)
    .describe('Abstracted key logic: the essential idea of the change in plain words, without code'),
  directive: z.string().min(1).describe('Directive: one imperative sentence saying what to achieve'),
});
export type QueryParts = z.infer<typeof QueryPartsSchema>;

export const LeakKind = z.enum(['fragment', 'literal', 'identifier', 'name', 'path']);
export type LeakKind = z.infer<typeof LeakKind>;

/** One piece of the gold patch that a query repeats. */
export const LeakFindingSchema = z.object({
  kind: LeakKind,
  text: z.string(),
  weight: z.number().min(0).max(1),
});
export type LeakFinding = z.infer<typeof LeakFindingSchema>;

/** How much of the gold patch a query gives away (src/queries/leak-check.ts). */
export const LeakReportSchema = z.object({
  score: z.number().min(0).max(1),
  findings: z.array(LeakFindingSchema),
  /** The limit the query was held to; it passed at score ≤ limit. */
  limit: z.number().min(0).max(1),
  passed: z.boolean(),
  /** Generations it took (1 when the first one passed, or for a template query). */
  attempts: z.number().int().positive(),
  /** Score of the first generation, before any regeneration. */
  firstScore: z.number().min(0).max(1),
});
export type LeakReport = z.infer<typeof LeakReportSchema>;

/** What the agent is told for one stage: intent and place, never the literal edit. */
export const StageQuerySchema = z.object({
  prNumber: z.number().int().positive(),
  text: z.string().min(1),
  parts: QueryPartsSchema.optional(),
  leak: LeakReportSchema.optional(),
});
export type StageQuery = z.infer<typeof StageQuerySchema>;

export const ChainQueriesSchema = z.object({
  overview: z.string().min(1),
  stages: z.array(StageQuerySchema).min(1),
  generator: z.enum(['template', 'model']),
  /** The model that wrote model queries. */
  model: z.string().optional(),
  overviewLeak: LeakReportSchema.optional(),
});
export type ChainQueries = z.infer<typeof ChainQueriesSchema>;
