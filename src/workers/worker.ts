import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps, type Activities } from '../activities';
import { ACTIVITY_TABLE, type ActivityName } from '../workflows/activity-table';
import { ORCHESTRATION_QUEUE, taskQueueFor, type QueueKind } from '../workflows/task-queues';
import { cachedWorkflowBundle } from './workflow-bundle';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  /** The activities to serve (default: the real ones, built from `deps`); tests pass fakes of the same names. */
  activities?: Activities;
  taskQueue?: string;
  /** A workflow bundle to use; by default src/workflows bundled once per version of its code (workflow-bundle.ts). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Concurrent rollouts on this host; each holds one container. */
  maxSandboxes?: number;
  /**
   * Which queues: 'sandbox' for a Docker host added to scale out, 'orchestration' for a machine
   * without Docker (workflows and light activities only), 'all' (default) for one host doing both.
   */
  serve?: 'all' | 'sandbox' | 'orchestration';
}

/**
 * Workers in one process: orchestration (workflows, queries, judge, export), sandbox (rollouts and gold
 * validation, which need this host's Docker engine) and this host's own queue (cleanup of its
 * sandboxes); which activity goes where is workflows/activity-table.ts. More hosts scale
 * out by running more sandbox workers against the same Temporal cluster and artifact store.
 */
export async function createWorkers(setup: WorkerSetup): Promise<Worker[]> {
  const taskQueue = setup.taskQueue ?? ORCHESTRATION_QUEUE;
  const activities = setup.activities ?? createActivities(setup.deps);
  // Heartbeats reach the server at least every 3 s (the SDK otherwise holds them back for 0.8 of the
  // heartbeat timeout, leaving a loaded server 2 s of a 10 s timeout): activities beat on a timer at a
  // third of it (activities/guard.ts), and a timeout only a slow heartbeat caused would retry work alive.
  const common = {
    connection: setup.connection,
    namespace: setup.namespace,
    maxHeartbeatThrottleInterval: '3s' as const,
  };
  const on = (kind: QueueKind) => ({
    taskQueue: taskQueueFor(kind, taskQueue, setup.deps.config.worker.host),
    activities: servedOn(kind, activities),
  });
  const workers: Worker[] = [];
  const serve = setup.serve ?? 'all';
  if (serve !== 'sandbox') {
    workers.push(
      await Worker.create({
        ...common,
        ...on('orchestration'),
        maxConcurrentActivityTaskExecutions: 64,
        // After a worker dies, tasks for its cached workflows wait this long on its sticky queue before
        // any worker takes them; short, because our histories are small and cheap to replay.
        stickyQueueScheduleToStartTimeout: '3s',
        workflowBundle: setup.workflowBundle ?? (await cachedWorkflowBundle(require.resolve('../workflows'))),
      }),
    );
  }
  if (serve === 'orchestration') return workers;
  workers.push(
    await Worker.create({ ...common, ...on('sandbox'), maxConcurrentActivityTaskExecutions: setup.maxSandboxes ?? 4 }),
    await Worker.create({ ...common, ...on('host') }),
  );
  return workers;
}

/** The activities the table routes to queues of `kind`. */
function servedOn(kind: QueueKind, activities: Activities): Partial<Activities> {
  const names = (Object.keys(ACTIVITY_TABLE) as ActivityName[]).filter((name) => ACTIVITY_TABLE[name].queue === kind);
  return Object.fromEntries(names.map((name) => [name, activities[name]]));
}

/** Runs the workers until `until` settles (or forever), then shuts them down. */
export async function runWorkers(workers: Worker[], until?: Promise<unknown>): Promise<void> {
  if (until) await Promise.all(workers.map((w) => w.runUntil(until)));
  else await Promise.all(workers.map((w) => w.run()));
}
