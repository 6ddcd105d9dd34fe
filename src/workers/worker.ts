import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { hostQueue, ORCHESTRATION_QUEUE, sandboxQueue } from '../workflows/task-queues';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  taskQueue?: string;
  /** Prebuilt workflow bundle (tests build it once); otherwise the worker bundles src/workflows. */
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
 * Workers in one process: orchestration (workflows, judge, export), sandbox (rollouts, which need
 * this host's Docker engine) and this host's own queue (cleanup of its sandboxes). More hosts scale
 * out by running more sandbox workers against the same Temporal cluster and artifact store.
 */
export async function createWorkers(setup: WorkerSetup): Promise<Worker[]> {
  const taskQueue = setup.taskQueue ?? ORCHESTRATION_QUEUE;
  const activities = createActivities(setup.deps);
  const common = { connection: setup.connection, namespace: setup.namespace };
  const workers: Worker[] = [];
  const serve = setup.serve ?? 'all';
  if (serve !== 'sandbox') {
    workers.push(
      await Worker.create({
        ...common,
        taskQueue,
        activities: {
          synthesizeQueries: activities.synthesizeQueries,
          judgeStage: activities.judgeStage,
          exportSample: activities.exportSample,
          batchPage: activities.batchPage,
          cutChain: activities.cutChain,
          mineForSchedule: activities.mineForSchedule,
        },
        maxConcurrentActivityTaskExecutions: 64,
        // After a worker dies, tasks for its cached workflows wait this long on its sticky queue before
        // any worker takes them; short, because our histories are small and cheap to replay.
        stickyQueueScheduleToStartTimeout: '3s',
        ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath: require.resolve('../workflows') }),
      }),
    );
  }
  if (serve === 'orchestration') return workers;
  workers.push(
    await Worker.create({
      ...common,
      taskQueue: sandboxQueue(taskQueue),
      activities: { rolloutRound: activities.rolloutRound, validateGold: activities.validateGold },
      maxConcurrentActivityTaskExecutions: setup.maxSandboxes ?? 4,
    }),
    await Worker.create({
      ...common,
      taskQueue: hostQueue(taskQueue, setup.deps.config.worker.host),
      activities: { cleanupRun: activities.cleanupRun },
    }),
  );
  return workers;
}

/** Runs the workers until `until` settles (or forever), then shuts them down. */
export async function runWorkers(workers: Worker[], until?: Promise<unknown>): Promise<void> {
  if (until) await Promise.all(workers.map((w) => w.runUntil(until)));
  else await Promise.all(workers.map((w) => w.run()));
}
