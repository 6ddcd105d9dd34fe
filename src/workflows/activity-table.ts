import { ActivityCancellationType, type RetryPolicy } from '@temporalio/common';
import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { ACTIVITY_ATTEMPTS } from '../retry-budget';
import { taskQueueFor, type QueueKind } from './task-queues';

export type ActivityName = keyof Activities;

interface ActivityPlan extends Omit<ActivityOptions, 'taskQueue' | 'heartbeatTimeout' | 'summary'> {
  queue: QueueKind;
  /**
   * Whether the activity heartbeats on a timer (activities/guard.ts) and so gets the chain's heartbeat
   * timeout: a worker killed while it runs is noticed within seconds and the activity retried
   * elsewhere, not after its start-to-close timeout (25 minutes for gold validation).
   */
  heartbeat: boolean;
}

/** Model calls and sandbox work: retried with backoff, boundedly. */
const BACKOFF: RetryPolicy = {
  initialInterval: '2s',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: ACTIVITY_ATTEMPTS.backoff,
};
/** Reading and writing files: retried soon, a few times. */
const QUICK: RetryPolicy = { initialInterval: '1s', maximumAttempts: ACTIVITY_ATTEMPTS.quick };

/**
 * Every activity: the queue whose workers serve it (workers/worker.ts registers from this table) and
 * its timeouts and retry policy (the workflows' proxies read it; the counts are in src/retry-budget.ts). Permanent errors
 * (ApplicationFailure.nonRetryable) are never retried.
 */
export const ACTIVITY_TABLE = {
  /**
   * A rollout round can run for hours (a model-driven agent, 100+ tool calls) but heartbeats after every
   * step and on a timer: a killed worker is noticed within the heartbeat timeout (config
   * durability.heartbeatTimeoutSeconds, default 10 s) and the retry resumes from the last step's
   * checkpoint, so a crash costs one step, not the round. Attempts add up over a long round, so the
   * backoff stays short (a tenth crash should not wait minutes); the bound is for failures that keep
   * repeating (an engine that stays down). A failed model request (429, 5xx, timeout) fails the attempt
   * too: it is not retried inside the step as well, so one request is tried at most this many times
   * (src/retry-budget.ts). A pause
   * cancels the round and waits until its last step is saved.
   */
  rolloutRound: {
    queue: 'sandbox',
    heartbeat: true,
    startToCloseTimeout: '6 hours',
    retry: {
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: ACTIVITY_ATTEMPTS.rolloutRound,
    },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  },
  /** Gold validation runs the PR's tests twice in a sandbox (each bounded at 10 minutes). */
  validateGold: { queue: 'sandbox', heartbeat: true, startToCloseTimeout: '25 minutes', retry: BACKOFF },
  /**
   * Removing leftover sandboxes: best effort, on the host that holds them. A chain's result waits for
   * it, so a host whose worker is gone gets 30 seconds to take the task (a live worker polls its host
   * queue and takes it at once); what a dead host holds is removed when a worker starts there again
   * (workers/sweep.ts), so waiting longer for it would only delay the chain's result.
   */
  cleanupRun: {
    queue: 'host',
    heartbeat: true,
    scheduleToStartTimeout: '30 seconds',
    startToCloseTimeout: '2 minutes',
    scheduleToCloseTimeout: '3 minutes',
    retry: { initialInterval: '2s', maximumAttempts: ACTIVITY_ATTEMPTS.cleanupRun },
  },
  /** Writing a chain's queries: up to four model calls per query with leak-check regenerations. */
  synthesizeQueries: { queue: 'orchestration', heartbeat: true, startToCloseTimeout: '30 minutes', retry: BACKOFF },
  /** One verdict (up to JUDGE_ASKS model requests), or none for a gold replay. */
  judgeStage: { queue: 'orchestration', heartbeat: true, startToCloseTimeout: '10 minutes', retry: BACKOFF },
  cutChain: { queue: 'orchestration', heartbeat: true, startToCloseTimeout: '10 minutes', retry: QUICK },
  /** Token counting of a multi-million-token trajectory takes a while. */
  exportSample: { queue: 'orchestration', heartbeat: true, startToCloseTimeout: '10 minutes', retry: QUICK },
  /** One page of a batch list from the store: seconds, not the judge's ten minutes. */
  batchPage: { queue: 'orchestration', heartbeat: false, startToCloseTimeout: '1 minute', retry: QUICK },
  /**
   * A scheduled run's mine of one repository: a fetch and a mine of what is new, minutes on a large
   * history the first time. A clone that cannot be fetched fails at once (non-retryable); other
   * failures are tried again before the run reports the repository failed.
   */
  mineForSchedule: {
    queue: 'orchestration',
    heartbeat: true,
    startToCloseTimeout: '3 hours',
    retry: {
      initialInterval: '5s',
      backoffCoefficient: 2,
      maximumInterval: '1 minute',
      maximumAttempts: ACTIVITY_ATTEMPTS.mineForSchedule,
    },
  },
} as const satisfies Record<ActivityName, ActivityPlan>;

interface Call {
  /** The workflow's own task queue, which the activity's queue pairs with. */
  queue: string;
  /** Names the call in the Temporal UI. */
  summary: string;
  /** For activities that heartbeat: how soon a silent one is retried. */
  heartbeatTimeoutSeconds?: number;
  /** For host-queue activities: the host that must run it. */
  host?: string;
}

/** A workflow's handle on one activity, with the queue and timeouts the table gives it. */
export function activity<K extends ActivityName>(name: K, call: Call): Activities[K] {
  return proxyActivities<Activities>(activityOptions(name, call))[name];
}

function activityOptions(name: ActivityName, call: Call): ActivityOptions {
  const { queue, heartbeat, ...options }: ActivityPlan = ACTIVITY_TABLE[name];
  const seconds = heartbeat ? call.heartbeatTimeoutSeconds : undefined;
  return {
    ...options,
    taskQueue: taskQueueFor(queue, call.queue, call.host),
    ...(seconds === undefined ? {} : { heartbeatTimeout: `${seconds} seconds` }),
    summary: call.summary,
  };
}
