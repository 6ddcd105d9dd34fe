import type { ActivityOptions } from '@temporalio/workflow';

/**
 * Every timeout and retry policy in one place.
 * - A rollout round can run for hours (a model-driven agent, 100+ tool calls), so it gets a long
 *   start-to-close bound but heartbeats every few seconds (and after every step): a killed worker is
 *   noticed within the heartbeat timeout (config durability.heartbeatTimeoutSeconds, default 30 s) and the retry resumes from the last step's checkpoint.
 *   Model-call faults (429, 5xx, timeouts) are retried inside the step, boundedly (config
 *   model.retries), so a flaky endpoint does not use up these attempts.
 * - Retries back off and stop after a bounded number of attempts; permanent errors
 *   (ApplicationFailure.nonRetryable) are never retried.
 * - Rollouts go to the sandbox queue paired with the workflow's queue (task-queues.ts).
 * - Judge and export are short calls (a model request, a file append).
 */
export function rolloutOptions(heartbeatTimeoutSeconds: number): ActivityOptions {
  return {
    startToCloseTimeout: '6 hours',
    heartbeatTimeout: `${heartbeatTimeoutSeconds} seconds`,
    // Every attempt resumes from the last saved step, so a crash costs one step, not the round. Attempts
    // add up over a long round, so the backoff stays short (a tenth crash should not wait minutes);
    // the attempt bound is for failures that keep repeating (an engine that stays down).
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 30 },
  };
}

export const JUDGE: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};

export const EXPORT: ActivityOptions = {
  // Token counting of a multi-million-token trajectory takes a while.
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '1s', maximumAttempts: 5 },
};

/**
 * Removing leftover sandboxes: best effort, on the host that holds them. A chain's result waits for
 * it, so a host whose worker is gone gets 30 seconds to take the task (a live worker polls its host
 * queue and takes it at once); what a dead host holds is removed when a worker starts there again
 * (workers/sweep.ts), so waiting longer for it would only delay the chain's result.
 */
export const CLEANUP: ActivityOptions = {
  scheduleToStartTimeout: '30 seconds',
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '3 minutes',
  retry: { initialInterval: '2s', maximumAttempts: 3 },
};

/** Writing a chain's queries: up to four model calls per query with leak-check regenerations. */
export const QUERIES: ActivityOptions = {
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};

/** Gold validation runs the PR's tests twice in a sandbox (each bounded at 10 minutes). */
export const GOLD: ActivityOptions = {
  startToCloseTimeout: '25 minutes',
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
};

/**
 * The same options with a heartbeat timeout: the activity heartbeats on a timer (activities/index.ts),
 * so a worker killed while it runs is noticed within seconds and the activity retried elsewhere, not
 * after its start-to-close timeout (25 minutes for gold validation). For every activity of a chain.
 */
export function beating(options: ActivityOptions, heartbeatTimeoutSeconds: number): ActivityOptions {
  return { ...options, heartbeatTimeout: `${heartbeatTimeoutSeconds} seconds` };
}

/**
 * A scheduled run's mine of one repository: a fetch and a mine of what is new, minutes on a large
 * history the first time. A clone that cannot be fetched fails at once (non-retryable); other
 * failures are tried again before the run reports the repository failed.
 */
export const MINE: ActivityOptions = {
  startToCloseTimeout: '3 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '5s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
};
