import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { ORCHESTRATION_QUEUE, sandboxQueue } from '../workflows/task-queues';

export interface WorkerSetup {
  connection: NativeConnection;
  namespace: string;
  deps: ActivityDeps;
  taskQueue?: string;
  /** Prebuilt workflow bundle (tests build it once); otherwise the worker bundles src/workflows. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Concurrent rollouts on this host; each holds one container. */
  maxSandboxes?: number;
}

/**
 * Two workers in one process: orchestration (workflows, judge, export) and sandbox (rollouts, which
 * need this host's Docker engine). More hosts scale out by running more sandbox workers.
 */
export async function createWorkers(setup: WorkerSetup): Promise<Worker[]> {
  const taskQueue = setup.taskQueue ?? ORCHESTRATION_QUEUE;
  const activities = createActivities(setup.deps);
  const common = { connection: setup.connection, namespace: setup.namespace };
  const orchestration = await Worker.create({
    ...common,
    taskQueue,
    activities: { judgeStage: activities.judgeStage, exportSample: activities.exportSample },
    ...(setup.workflowBundle
      ? { workflowBundle: setup.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
  });
  const sandbox = await Worker.create({
    ...common,
    taskQueue: sandboxQueue(taskQueue),
    activities: { rolloutRound: activities.rolloutRound },
    maxConcurrentActivityTaskExecutions: setup.maxSandboxes ?? 4,
  });
  return [orchestration, sandbox];
}

/** Runs the workers until `until` settles (or forever), then shuts them down. */
export async function runWorkers(workers: Worker[], until?: Promise<unknown>): Promise<void> {
  if (until) await Promise.all(workers.map((w) => w.runUntil(until)));
  else await Promise.all(workers.map((w) => w.run()));
}
