/** Workflows and light activities (queries, judge, export). */
export const ORCHESTRATION_QUEUE = 'chainsmith';

/**
 * How long a worker has to complete a workflow task of a chain or a batch (Temporal's default is 10 s).
 * A server short of CPU sometimes hands a task to a poll that never receives it, and only this timeout
 * brings it back: at 10 s, such a loss was the slowest chain's largest delay in a batch of 64 on 2 cores.
 * Ours take milliseconds, but under load one took up to 1.3 s from start to completion (64 chains at once)
 * and 3.6 s (128): shorter than that, a slow task times out and is done again.
 */
export const WORKFLOW_TASK_TIMEOUT = '5s';

/**
 * Which workers serve an activity: the orchestration queue's, the sandbox queue's (any host with a
 * Docker engine), or one host's own queue (work that must reach the engine holding a stage's containers).
 */
export type QueueKind = 'orchestration' | 'sandbox' | 'host';

/** Activities that need a Docker engine go to the sandbox queue paired with the workflow's queue. */
function sandboxQueue(orchestrationQueue: string): string {
  return `${orchestrationQueue}-sandbox`;
}

/** Each sandbox worker also serves a queue of its own host, for work that must reach that host's engine. */
function hostQueue(orchestrationQueue: string, host: string): string {
  return `${sandboxQueue(orchestrationQueue)}@${host}`;
}

/** The task queue of `kind` paired with a workflow's (orchestration) queue. */
export function taskQueueFor(kind: QueueKind, orchestrationQueue: string, host?: string): string {
  if (kind === 'orchestration') return orchestrationQueue;
  if (kind === 'sandbox') return sandboxQueue(orchestrationQueue);
  if (host === undefined) throw new TypeError('a host queue needs the host');
  return hostQueue(orchestrationQueue, host);
}
