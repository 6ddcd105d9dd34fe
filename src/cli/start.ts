import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { templateQueries } from '../queries/template';
import type { Chain, PolicyKind } from '../schemas';
import { chainWorkflow } from '../workflows';
import { chainWorkflowId } from '../workflows/messages';
import { ORCHESTRATION_QUEUE } from '../workflows/task-queues';

export interface Started {
  workflowId: string;
  handle: WorkflowHandle<typeof chainWorkflow>;
  existed: boolean;
}

/** The policy a run uses: the configured model, or gold replay when there is none. */
export function defaultPolicy(config: Config): PolicyKind {
  return config.model.baseUrl ? 'model' : 'gold-replay';
}

/**
 * Stores each chain and its queries, then starts one workflow per chain. Ids derive from the chain, so a
 * chain that already ran (or runs) is attached to instead of started again; a failed one may be retried.
 */
export async function startChains(
  client: Client,
  config: Config,
  chains: Chain[],
  opts: { policy: PolicyKind; taskQueue?: string },
): Promise<Started[]> {
  const store = new ArtifactStore(`${config.dataDir}/artifacts`);
  const started: Started[] = [];
  for (const chain of chains) {
    const prNumbers = chain.prs.map((pr) => pr.number);
    const workflowId = chainWorkflowId(chain.repo.name, prNumbers, opts.policy);
    const input = {
      chainId: chain.id,
      repo: chain.repo.name,
      prNumbers,
      chainRef: await store.putJson(chain),
      queriesRef: await store.putJson(templateQueries(chain)),
      policy: opts.policy,
      // A gold replay that fails its tests shows a broken environment; feedback rounds cannot fix that.
      maxRefinements: opts.policy === 'gold-replay' ? 0 : config.judge.maxRefinements,
    };
    try {
      const handle = await client.workflow.start(chainWorkflow, {
        workflowId,
        taskQueue: opts.taskQueue ?? ORCHESTRATION_QUEUE,
        args: [input],
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      });
      started.push({ workflowId, handle, existed: false });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      started.push({ workflowId, handle: client.workflow.getHandle(workflowId), existed: true });
    }
  }
  return started;
}
