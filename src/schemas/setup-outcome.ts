import { z } from 'zod';

const Count = z.number().int().nonnegative();

/**
 * What the setup agent (src/setup-agent) did for a stage whose detected recipe did not build or run its
 * tests: 'rescued' (a recipe it proposed now validated), 'saved-recipe' (a recipe it saved for the
 * repository earlier validated, no model call), 'failed' (every attempt failed; `reasons` says why each
 * did), 'model-unavailable' (the model endpoint failed: the stage is not set up by the agent, the run
 * goes on). Pure schema.
 */
export const SetupOutcomeSchema = z.object({
  outcome: z.enum(['rescued', 'saved-recipe', 'failed', 'model-unavailable']),
  /** Recipes the agent proposed for this stage (0 where a saved one served or the model never answered). */
  attempts: Count,
  /** One line per failed try, detection's first: what failed and how. */
  reasons: z.array(z.string()),
  /** The saved recipes file the stage's recipe is in (or would have gone to). */
  recipeFile: z.string().optional(),
  requests: Count,
  promptTokens: Count,
  completionTokens: Count,
  /** US dollars; absent where the model has no price (budget.prices). */
  costUsd: z.number().nonnegative().optional(),
});
export type SetupOutcome = z.infer<typeof SetupOutcomeSchema>;
