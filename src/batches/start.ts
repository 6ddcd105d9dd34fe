import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import type { Chain, PolicyKind, ScaffoldKind } from '../schemas';
import { batchWorkflow, chainWorkflow } from '../workflows';
import { ORCHESTRATION_QUEUE, WORKFLOW_TASK_TIMEOUT } from '../workflows/task-queues';
import type { BatchEntry } from '../workflows/types';
import { batchEntry, batchWorkflowId } from './entries';

export interface Started {
  workflowId: string;
  handle: WorkflowHandle<typeof chainWorkflow>;
  existed: boolean;
}

export interface StartOptions {
  policy: PolicyKind;
  /** The agent's protocol (default: the config's agent.scaffold). */
  scaffold?: ScaffoldKind;
  taskQueue?: string;
}

/** The policy a run uses: the configured model, or gold replay when there is none. */
export function defaultPolicy(config: Config): PolicyKind {
  return config.model.baseUrl ? 'model' : 'gold-replay';
}

/**
 * Starts one workflow per chain. Ids derive from the chain, so a chain that already ran (or runs) is
 * attached to instead of started again; a failed one may be retried.
 */
export async function startChains(
  client: Client,
  config: Config,
  chains: Chain[],
  opts: StartOptions,
): Promise<Started[]> {
  const store = ArtifactStore.fromConfig(config);
  const started: Started[] = [];
  for (const chain of chains) {
    const { workflowId, input } = await batchEntry(
      store,
      config,
      chain,
      opts.policy,
      opts.scaffold ?? config.agent.scaffold,
    );
    try {
      const handle = await client.workflow.start(chainWorkflow, {
        workflowId,
        taskQueue: opts.taskQueue ?? ORCHESTRATION_QUEUE,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
      });
      started.push({ workflowId, handle, existed: false });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      started.push({ workflowId, handle: client.workflow.getHandle(workflowId), existed: true });
    }
  }
  return started;
}

/**
 * Starts a batch workflow that runs the chains as children, `concurrency` at a time. The batch id
 * derives from its chains' workflow ids (so from policy and scaffold too): starting the same batch
 * again attaches to it.
 */
export async function startBatch(
  client: Client,
  config: Config,
  chains: Chain[],
  opts: StartOptions & { concurrency: number },
): Promise<{ workflowId: string; handle: WorkflowHandle<typeof batchWorkflow>; existed: boolean; total: number }> {
  const store = ArtifactStore.fromConfig(config);
  const entries: BatchEntry[] = [];
  for (const chain of chains)
    entries.push(await batchEntry(store, config, chain, opts.policy, opts.scaffold ?? config.agent.scaffold));
  const workflowId = batchWorkflowId(entries);
  const batchRef = await store.putJson(entries);
  try {
    const handle = await client.workflow.start(batchWorkflow, {
      workflowId,
      taskQueue: opts.taskQueue ?? ORCHESTRATION_QUEUE,
      args: [{ batchRef, total: entries.length, concurrency: opts.concurrency }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
    });
    return { workflowId, handle, existed: false, total: entries.length };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    return { workflowId, handle: client.workflow.getHandle(workflowId), existed: true, total: entries.length };
  }
}
