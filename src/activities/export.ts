import { appendSample, buildSample, datasetPath } from '../dataset/export';
import { ChainQueriesSchema, ChainSchema, TrajectorySchema, type ArtifactRef } from '../schemas';
import type { ActivityContext } from './context';
import { guard } from './guard';

export interface ExportInput {
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  trajectoryRef: ArtifactRef;
  stages: { prNumber: number; score: number; rounds: number }[];
}

export function exportActivities(ctx: ActivityContext) {
  const { store } = ctx;
  return {
    /** An accepted chain's trajectory, appended to its dataset as one SFT sample. */
    async exportSample(input: ExportInput) {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        const trajectory = await store.getJson(input.trajectoryRef, TrajectorySchema);
        const queries = await store.getJson(input.queriesRef, ChainQueriesSchema);
        const sample = buildSample(
          chain,
          trajectory,
          input.stages.map((st, i) => ({ ...st, leakScore: queries.stages[i]?.leak?.score })),
        );
        const path = datasetPath(ctx.config.dataDir, trajectory.policy, trajectory.scaffold);
        await appendSample(path, sample);
        return { sampleId: sample.id, path };
      });
    },
  };
}
