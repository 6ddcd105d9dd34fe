import type { ExitReason, Trajectory } from '../schemas';
import type { Price } from './pricing';

/** What one chain's conversation may spend; every limit is optional. */
export interface Budget {
  /** Prompt plus completion tokens over all model calls, as the API reported them. */
  maxTokens?: number;
  maxCostUsd?: number;
  /** Time in agent steps (model calls and tools), across rounds, stages and resumes. */
  maxWallSeconds?: number;
  /** See context-window.ts. */
  contextTokens?: number;
  /** The policy's model's price; without one the conversation's cost is unknown. */
  price?: Price;
}

/**
 * The one place limits are checked: the step limit of this round, then the chain's budget. Called
 * before the first step and after every step, so a run ends with the reason it stopped.
 */
export function limitExit(
  t: Trajectory,
  stepsThisRound: number,
  limits: Budget & { maxSteps: number },
): ExitReason | undefined {
  if (limits.maxTokens !== undefined && t.usage.promptTokens + t.usage.completionTokens >= limits.maxTokens)
    return 'token_limit';
  if (limits.maxCostUsd !== undefined && (t.costUsd ?? 0) >= limits.maxCostUsd) return 'cost_limit';
  if (limits.maxWallSeconds !== undefined && (t.elapsedMs ?? 0) >= limits.maxWallSeconds * 1000) return 'time_limit';
  if (stepsThisRound >= limits.maxSteps) return 'step_limit';
  return undefined;
}
