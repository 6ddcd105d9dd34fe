import { removeRoundContainers } from '../stage/round-container';
import type { ActivityContext } from './context';
import { guard } from './guard';

export function cleanupActivities(ctx: ActivityContext) {
  return {
    /**
     * Removes what a run left on this host, found by name (round-container.ts): sandboxes of crashed
     * attempts that no retry came back for, pooled ones a round took, one prepared for a round that never came.
     */
    async cleanupRun(input: { runKey: string }): Promise<number> {
      return guard(() => removeRoundContainers(ctx.docker, { runKey: input.runKey, host: ctx.host }, ctx.pool));
    },
  };
}
