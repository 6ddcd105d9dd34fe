import { ChainSchema, type ArtifactRef } from '../schemas';
import type { BatchEntry } from '../workflows/types';
import type { ActivityContext } from './context';
import { guard } from './guard';

/** Chains and batch lists in the artifact store, read and written for the workflows. */
export function chainActivities(ctx: ActivityContext) {
  const { store } = ctx;
  return {
    /** The chain's first `stages` stages, stored as a chain of its own. */
    async cutChain(input: { chainRef: ArtifactRef; stages: number }): Promise<{ chainRef: ArtifactRef }> {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        return { chainRef: await store.putJson({ ...chain, prs: chain.prs.slice(0, input.stages) }) };
      });
    },

    /** One page of a batch's entries, so the batch list itself never enters workflow history. */
    async batchPage(input: { batchRef: ArtifactRef; offset: number; limit: number }): Promise<BatchEntry[]> {
      const entries = JSON.parse(await store.getText(input.batchRef)) as BatchEntry[];
      return entries.slice(input.offset, input.offset + input.limit);
    },
  };
}
