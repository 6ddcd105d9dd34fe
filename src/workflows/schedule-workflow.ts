import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  startChild,
  upsertMemo,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { MinedForSchedule, ScheduledRunInput, ScheduledRunReport } from './types';
import { batchWorkflow } from './batch-workflow';
import { activity } from './activity-table';
import { WORKFLOW_TASK_TIMEOUT } from './task-queues';

/**
 * One run of a `chainsmith schedule`: each repository is fetched and mined for what is new since the
 * last run (an activity), and the new chains start as a batch (a child that outlives the run, so the
 * next run is not held back by rollouts). What the run started and which repositories failed, and
 * why, go into its memo. A failed repository does not stop the others; the run then fails, naming
 * them, and the schedule's retry policy decides whether it is run again.
 */
export async function scheduledRunWorkflow(input: ScheduledRunInput): Promise<ScheduledRunReport> {
  const report: ScheduledRunReport = { started: [], failed: [] };
  for (let index = 0; index < input.repos.length; index++) {
    const { source } = input.repos[index];
    const mineForSchedule = activity('mineForSchedule', {
      queue: workflowInfo().taskQueue,
      summary: `fetch and mine ${source}`,
      heartbeatTimeoutSeconds: 60,
    });
    try {
      const mined = await mineForSchedule({ run: input, index });
      if (mined.batch) await startBatch(input, mined);
      report.started.push({
        source,
        newChains: mined.newChains.length,
        chains: mined.newChains.slice(0, 50),
        batchWorkflowId: mined.batch?.workflowId,
      });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      report.failed.push({ source, reason: err.cause?.message ?? err.message });
    }
    // One key: a memo field holding an empty list would be dropped, and readers could not tell none from unknown.
    upsertMemo({ report });
  }
  if (report.failed.length > 0) {
    const reasons = report.failed.map((f) => `${f.source}: ${f.reason}`).join('; ');
    throw ApplicationFailure.create({
      type: 'ScheduledRunFailed',
      message: `${report.failed.length} of ${input.repos.length} repositories failed: ${reasons}`,
      details: [report],
    });
  }
  return report;
}

async function startBatch(input: ScheduledRunInput, mined: MinedForSchedule): Promise<void> {
  const batch = mined.batch as NonNullable<MinedForSchedule['batch']>;
  try {
    await startChild(batchWorkflow, {
      workflowId: batch.workflowId,
      args: [{ batchRef: batch.batchRef, total: batch.total, concurrency: input.start.concurrency }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
      memo: { schedule: input.scheduleId, source: mined.source },
    });
  } catch (err) {
    // A retried run hands on the batch its first attempt started.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
