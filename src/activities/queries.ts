import { activityInfo } from '@temporalio/activity';
import { createHash } from 'node:crypto';
import { chainQueries } from '../queries/chain-queries';
import type { SynthesisOptions } from '../queries/synthesize';
import { summarizeLeaks } from '../queries/leak-rate';
import { ChainSchema, type ArtifactRef, type PolicyKind } from '../schemas';
import type { ActivityContext } from './context';
import { guard } from './guard';

/**
 * Each written query kept in the store under this workflow run and chain as soon as it is written: a
 * retry after a kill asks the writer only for the pieces not written yet. Another run of the same chain
 * writes its own.
 */
function keptPieces(ctx: ActivityContext, chainRef: ArtifactRef): SynthesisOptions['keep'] {
  const run = activityInfo().workflowExecution;
  const base = `queries-written/${createHash('sha256').update(`${run?.workflowId}/${run?.runId}/${chainRef}`).digest('hex').slice(0, 24)}`;
  return async (piece, write) => {
    const known = await ctx.store.getPointer(`${base}/${piece}`);
    if (known) return JSON.parse(await ctx.store.getText(known));
    const written = await write();
    await ctx.store.setPointer(`${base}/${piece}`, await ctx.store.putJson(written));
    return written;
  };
}

export function queryActivities(ctx: ActivityContext) {
  return {
    /** The chain's queries: model-written with a leak check when a model is configured, else templates. */
    async synthesizeQueries(input: { chainRef: ArtifactRef; policy: PolicyKind }) {
      return guard(async () => {
        const chain = await ctx.store.getJson(input.chainRef, ChainSchema);
        const queries = await chainQueries(chain, ctx.judgeModel(input.policy), {
          keep: keptPieces(ctx, input.chainRef),
        });
        return { queriesRef: await ctx.store.putJson(queries), leakRate: summarizeLeaks([queries]).rate };
      });
    },
  };
}
