import type { WorkflowHandle } from '@temporalio/client';
import type { batchWorkflow } from '../workflows';
import { batchProgressQuery, type BatchCounts, type BatchProgress } from '../workflows/batch-workflow';
import type { ChainProgress, ChainResult } from '../workflows/types';
import { progressQuery } from '../workflows/messages';
import type { Started } from '../batches/start';

/** Polls each chain's progress query and prints a line whenever a chain moves; resolves with the results. */
export async function watchChains(started: Started[], log: (line: string) => void): Promise<ChainResult[]> {
  const last = new Map<string, string>();
  const describe = (p: ChainProgress) =>
    p.status === 'running'
      ? `stage ${p.stage + 1}/${p.stages} (PR #${p.results[p.stage]?.prNumber ?? '?'}) round ${p.round + 1}: running`
      : `${p.status}${p.reason ? `: ${p.reason}` : ''}`;
  const poll = async () => {
    for (const s of started) {
      const p = await s.handle.query(progressQuery).catch(() => undefined);
      if (!p) continue;
      const line = describe(p);
      if (last.get(s.workflowId) !== line) log(`  ${s.workflowId}  ${line}`);
      last.set(s.workflowId, line);
    }
  };
  const timer = setInterval(() => void poll(), 1000);
  try {
    const results = await Promise.all(started.map((s) => s.handle.result()));
    results.forEach((r, i) => {
      const line = describe(r);
      if (last.get(started[i].workflowId) !== line) log(`  ${started[i].workflowId}  ${line}`);
    });
    return results;
  } finally {
    clearInterval(timer);
  }
}

/** Prints a batch's counts whenever they change; resolves with its final counts. */
export async function watchBatch(
  handle: WorkflowHandle<typeof batchWorkflow>,
  log: (line: string) => void,
): Promise<BatchCounts> {
  let last = '';
  const show = (p: Partial<BatchProgress>) => {
    const line = `  ${p.started !== undefined ? `started ${p.started}/${p.total}, running ${p.running}; ` : ''}accepted ${p.accepted}, rejected ${p.rejected}, failed ${p.failed}, cancelled ${p.cancelled}, skipped ${p.skipped ?? 0}, already run ${p.existing}`;
    if (line !== last) log(line);
    last = line;
  };
  const timer = setInterval(() => void handle.query(batchProgressQuery).then(show, () => undefined), 2000);
  try {
    const counts = await handle.result();
    show(counts);
    return counts;
  } finally {
    clearInterval(timer);
  }
}
