import { z } from 'zod';

const Count = z.number().int().nonnegative();

/** What the link judge did in one mine: the summary's `linkJudge`. */
export const LinkJudgeTallySchema = z.object({
  model: z.string(),
  promptVersion: z.string(),
  /** Code-history or weak edges strong enough to join a chain, between PRs that may be stages. */
  candidates: Count,
  /** Candidates with a verdict (kept or dropped), of which from the verdict cache. */
  judged: Count,
  fromCache: Count,
  /** Judged none: taken out of the graph. */
  dropped: Count,
  /** Kept as mined, without a verdict (the model unavailable, or no valid reply). */
  notJudged: Count,
  /** Requests the model answered in this mine (a reply that did not fit is asked again); tokens and cost are theirs. */
  requests: Count,
  promptTokens: Count,
  completionTokens: Count,
  /** US dollars for this mine's requests; absent when the model has no price (budget.prices). */
  costUsd: z.number().nonnegative().optional(),
  /** The pairs dropped, and why. */
  droppedLinks: z.array(
    z.object({ from: z.number().int(), to: z.number().int(), kind: z.string(), reason: z.string() }),
  ),
  /** Why links went unjudged (one line per distinct reason). */
  notJudgedReasons: z.array(z.string()),
});
export type LinkJudgeTally = z.infer<typeof LinkJudgeTallySchema>;
