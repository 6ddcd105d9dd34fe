import {
  ChildWorkflowFailure,
  continueAsNew,
  defineQuery,
  isCancellation,
  ParentClosePolicy,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
  setHandler,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { ArtifactRef } from '../schemas';
import { activity } from './activity-table';
import { chainWorkflow } from './chain-workflow';
import { WORKFLOW_TASK_TIMEOUT } from './task-queues';
import type { BatchEntry } from './types';

export interface BatchCounts {
  accepted: number;
  rejected: number;
  failed: number;
  cancelled: number;
  /** Chains whose first stage nothing could judge: nothing was rolled out. */
  skipped?: number;
  /** Chains that had run (or were running) already: restarting a batch does not duplicate them. */
  existing: number;
}

interface BatchInput {
  /** The entries live in the artifact store: a batch of thousands would not fit in one history event. */
  batchRef: ArtifactRef;
  total: number;
  concurrency: number;
  offset?: number;
  counts?: BatchCounts;
}

export interface BatchProgress extends BatchCounts {
  total: number;
  started: number;
  running: number;
}

export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');

const PAGE = 50;
/** Children started per run before continuing as new, so a huge batch keeps a bounded history. */
const CHILDREN_PER_RUN = 200;

/** Runs the chains of a batch as child workflows, at most `concurrency` at a time. */
export async function batchWorkflow(input: BatchInput): Promise<BatchCounts> {
  const counts: BatchCounts = input.counts ?? { accepted: 0, rejected: 0, failed: 0, cancelled: 0, existing: 0 };
  let offset = input.offset ?? 0;
  const running = new Set<Promise<void>>();
  setHandler(batchProgressQuery, () => ({ ...counts, total: input.total, started: offset, running: running.size }));
  const batchPage = activity('batchPage', {
    queue: workflowInfo().taskQueue,
    summary: 'read the next page of the batch',
  });
  let startedThisRun = 0;

  while (offset < input.total) {
    const page = await batchPage({ batchRef: input.batchRef, offset, limit: PAGE });
    for (const entry of page) {
      while (running.size >= input.concurrency) await Promise.race(running);
      const child: Promise<void> = runChild(entry, counts).finally(() => running.delete(child));
      running.add(child);
      offset += 1;
      startedThisRun += 1;
    }
    if (offset < input.total && (startedThisRun >= CHILDREN_PER_RUN || workflowInfo().continueAsNewSuggested)) {
      await Promise.all(running);
      await continueAsNew<typeof batchWorkflow>({ ...input, offset, counts });
    }
  }
  await Promise.all(running);
  return counts;
}

async function runChild(entry: BatchEntry, counts: BatchCounts): Promise<void> {
  try {
    const child = await startChild(chainWorkflow, {
      workflowId: entry.workflowId,
      args: [entry.input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
    });
    const result = await child.result();
    if (result.status === 'accepted' || result.status === 'rejected' || result.status === 'failed')
      counts[result.status] += 1;
    else if (result.status === 'skipped') counts.skipped = (counts.skipped ?? 0) + 1;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) counts.existing += 1;
    else if (err instanceof ChildWorkflowFailure && isCancellation(err.cause)) counts.cancelled += 1;
    else if (err instanceof ChildWorkflowFailure) counts.failed += 1;
    else throw err;
  }
}
