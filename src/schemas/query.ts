import { z } from 'zod';

/** What the agent is told for one stage: intent and place, never the literal edit. */
export const StageQuerySchema = z.object({
  prNumber: z.number().int().positive(),
  text: z.string().min(1),
});
export type StageQuery = z.infer<typeof StageQuerySchema>;

export const ChainQueriesSchema = z.object({
  overview: z.string().min(1),
  stages: z.array(StageQuerySchema).min(1),
  generator: z.enum(['template', 'model']),
});
export type ChainQueries = z.infer<typeof ChainQueriesSchema>;
