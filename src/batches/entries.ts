import { createHash } from 'node:crypto';
import type { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import type { Chain, PolicyKind, ScaffoldKind } from '../schemas';
import { chainWorkflowId } from '../workflows/messages';
import type { BatchEntry, ChainWorkflowInput } from '../workflows/types';

// What a batch is made of, apart from starting it (start.ts): a scheduled mine's activity builds
// entries too, and the workflows run that activity, so entries must not reach the workflow code.

/** Stores a chain and its queries; the workflow input holds only their references. */
export async function batchEntry(
  store: ArtifactStore,
  config: Config,
  chain: Chain,
  policy: PolicyKind,
  scaffold: ScaffoldKind,
): Promise<BatchEntry> {
  const prNumbers = chain.prs.map((pr) => pr.number);
  const input: ChainWorkflowInput = {
    chainId: chain.id,
    repo: chain.repo.name,
    prNumbers,
    chainRef: await store.putJson(chain),
    policy,
    scaffold,
    // A gold replay that fails its tests shows a broken environment; feedback rounds cannot fix that.
    maxRefinements: policy === 'gold-replay' ? 0 : config.judge.maxRefinements,
    heartbeatTimeoutSeconds: config.durability.heartbeatTimeoutSeconds,
  };
  return { workflowId: chainWorkflowId(chain.repo.name, prNumbers, policy, scaffold), input };
}

/** A batch's id derives from its chains' workflow ids: the same chains under the same policy are one batch. */
export function batchWorkflowId(entries: readonly BatchEntry[]): string {
  const ids = entries.map((e) => e.workflowId);
  return `batch-${createHash('sha256').update(JSON.stringify(ids)).digest('hex').slice(0, 16)}`;
}
