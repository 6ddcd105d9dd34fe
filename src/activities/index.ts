import { chainActivities } from './chains';
import { cleanupActivities } from './cleanup';
import { activityContext, type ActivityDeps } from './context';
import { exportActivities } from './export';
import { judgeActivities } from './judge';
import { queryActivities } from './queries';
import { rolloutActivities } from './rollout';
import { scheduleActivities } from './schedule';

export type { ActivityDeps } from './context';

/**
 * Every activity, by concern: thin Temporal wrappers that resolve references, call the pipeline code
 * and turn permanent errors non-retryable. Which queue serves each, and its timeouts:
 * workflows/activity-table.ts.
 */
export function createActivities(deps: ActivityDeps) {
  const ctx = activityContext(deps);
  return {
    ...rolloutActivities(ctx),
    ...judgeActivities(ctx),
    ...queryActivities(ctx),
    ...exportActivities(ctx),
    ...chainActivities(ctx),
    ...cleanupActivities(ctx),
    ...scheduleActivities(ctx),
  };
}

export type Activities = ReturnType<typeof createActivities>;
