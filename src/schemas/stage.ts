import { z } from 'zod';
import { ArtifactRef } from './artifact';

/** What a carry did: clean, or conflicted with the files left holding conflict markers. */
export const CarrySchema = z.object({
  fromStages: z.array(z.number().int().positive()),
  /** Whether the stage's base already held the previous stage's gold (the usual case). */
  goldInBase: z.boolean(),
  conflicts: z.array(z.string()),
  /**
   * The conflict policy that was applied, recorded when there were conflicts: 'conflict-markers' keeps
   * both sides in text files (binary files take the agent's side) and tells the agent to resolve them.
   */
  policy: z.enum(['conflict-markers']).optional(),
});
export type Carry = z.infer<typeof CarrySchema>;

/** One rollout round of one stage; large parts live in the artifact store. */
export const RoundResultSchema = z.object({
  round: z.number().int().nonnegative(),
  trajectoryRef: ArtifactRef,
  stagePatchRef: ArtifactRef,
  /** The agent's tree against the gold tree after this stage (its merge): what carries on. */
  cumulativePatchRef: ArtifactRef,
  testsAfterRef: ArtifactRef,
  carry: CarrySchema,
  steps: z.number().int().nonnegative(),
  stepsResumed: z.number().int().nonnegative(),
  /** A retry found the round's sandbox still running and carried on in it. */
  reusedSandbox: z.boolean(),
  /** The sandbox host that ran the round: its leftovers are cleaned up there. */
  host: z.string(),
  /** Hosts of earlier attempts that died mid-round: what they left is cleaned up there. */
  earlierHosts: z.array(z.string()).optional(),
  exitReason: z.string(),
});
export type RoundResult = z.infer<typeof RoundResultSchema>;

/** A stage is 'running' from its first round until the judge or a failure settles it. */
const StageStatus = z.enum(['running', 'accepted', 'rejected', 'failed']);

export const StageResultSchema = z.object({
  prNumber: z.number().int().positive(),
  status: StageStatus,
  rounds: z.array(
    z.object({ round: z.number().int(), score: z.number(), passed: z.boolean(), judgementRef: ArtifactRef }),
  ),
  /** What gold validation found: the FAIL_TO_PASS and PASS_TO_PASS tests the judge checks against. */
  goldTestsRef: ArtifactRef.optional(),
  carry: CarrySchema.optional(),
  finalRound: RoundResultSchema.optional(),
});
export type StageResult = z.infer<typeof StageResultSchema>;
