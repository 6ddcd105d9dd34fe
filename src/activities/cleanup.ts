import { runLabel } from '../rollout/round';
import { HOST_LABEL, removeSandboxes, RUN_LABEL } from '../sandbox/docker-sandbox';
import type { ActivityContext } from './context';
import { guard } from './guard';

export function cleanupActivities(ctx: ActivityContext) {
  return {
    /** Removes what a run left on this host: sandboxes of crashed attempts that no retry came back for. */
    async cleanupRun(input: { runKey: string }): Promise<number> {
      return guard(() => removeSandboxes(ctx.docker, { [RUN_LABEL]: runLabel(input.runKey), [HOST_LABEL]: ctx.host }));
    },
  };
}
