import { z } from 'zod';
import { ArtifactRef } from '../schemas/artifact';
import { ProposalSchema } from './proposal';

const Count = z.number().int().nonnegative();

/**
 * Where the setup agent got to on one stage, saved after every model reply and every recipe's outcome
 * (SetupRun.save; the validateGold activity keeps it in its heartbeat details), so that a retried
 * activity goes on from there instead of asking the model again for what it answered. The conversation
 * itself is in the artifact store (claim check): the details carry only its reference.
 */
export const SetupProgressSchema = z.object({
  /** The stage it belongs to: progress of another stage (or another base) is not resumed. */
  repo: z.string(),
  pr: z.number().int(),
  baseSha: z.string(),
  /** The recipe under way (0-based) and the model calls it has taken so far. */
  attempt: Count,
  step: Count,
  /** Replies of this recipe that fit nothing so far (Conversation's MALFORMED bound). */
  problems: z.array(z.string()),
  /** The outcome's reasons so far: detection's, then one per failed recipe. */
  reasons: z.array(z.string()),
  transcriptRef: ArtifactRef,
  /** The propose_recipe call awaiting the build's answer. */
  pending: z.string().optional(),
  /** The recipe proposed for `attempt` and not yet built: a retry builds it without asking again. */
  proposal: ProposalSchema.optional(),
  requests: Count,
  promptTokens: Count,
  completionTokens: Count,
});
export type SetupProgress = z.infer<typeof SetupProgressSchema>;

/** How one stage's call reaches the agent from an activity: its cancellation, and where its progress is kept. */
export interface SetupRun {
  /** Stops the model call in flight and every call after it (the activity's cancellationSignal()). */
  signal?: AbortSignal;
  /** What an earlier try of this stage saved (the activity's last heartbeat details); resumed where it matches the stage. */
  resume?: SetupProgress;
  /** Keeps the progress (a heartbeat); called after every model reply and every recipe's outcome. */
  save?: (progress: SetupProgress) => void | Promise<void>;
}
