import { activityInfo } from '@temporalio/activity';
import { mineForSchedule } from '../schedule/scheduled-mine';
import type { ScheduledRunInput } from '../workflows/types';
import type { ActivityContext } from './context';
import { guard } from './guard';

/** The mining half of a scheduled run (workflows/schedule-workflow.ts). */
export function scheduleActivities(ctx: ActivityContext) {
  return {
    /** Fetches and mines one repository of the run for what is new since the last run. */
    async mineForSchedule(input: { run: ScheduledRunInput; index: number }) {
      return guard(() =>
        mineForSchedule(
          ctx.config,
          input.run,
          input.index,
          activityInfo().workflowExecution?.workflowId ?? 'unknown-run',
        ),
      );
    },
  };
}
