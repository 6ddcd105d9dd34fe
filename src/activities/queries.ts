import { chainQueries } from '../queries/chain-queries';
import { summarizeLeaks } from '../queries/leak-rate';
import { ChainSchema, type ArtifactRef, type PolicyKind } from '../schemas';
import type { ActivityContext } from './context';
import { guard } from './guard';

export function queryActivities(ctx: ActivityContext) {
  return {
    /** The chain's queries: model-written with a leak check when a model is configured, else templates. */
    async synthesizeQueries(input: { chainRef: ArtifactRef; policy: PolicyKind }) {
      return guard(async () => {
        const chain = await ctx.store.getJson(input.chainRef, ChainSchema);
        const queries = await chainQueries(chain, ctx.judgeModel(input.policy));
        return { queriesRef: await ctx.store.putJson(queries), leakRate: summarizeLeaks([queries]).rate };
      });
    },
  };
}
