import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { InputError } from '../errors';
import { formatReason } from '../stage-reason';
import type { RoundProgress } from '../rollout/round';
import { batchProgressQuery, type BatchProgress } from '../workflows/batch-workflow';
import { progressQuery } from '../workflows/messages';
import type { ChainProgress } from '../workflows/types';

/** The latest heartbeat of a running rollout: the agent's step and tokens, straight from Temporal. */
async function liveRound(handle: WorkflowHandle): Promise<RoundProgress | undefined> {
  const { raw } = await handle.describe();
  for (const activity of raw.pendingActivities ?? []) {
    const payload = activity.heartbeatDetails?.payloads?.[0];
    if (payload) return defaultPayloadConverter.fromPayload(payload) as RoundProgress;
  }
  return undefined;
}

async function showChain(client: Client, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  const running = (await handle.describe()).status.name === 'RUNNING';
  // A closed workflow answers from its result, so no worker needs to be running.
  const progress = running ? await handle.query(progressQuery) : ((await handle.result()) as ChainProgress);
  console.log(`${workflowId}: chain ${progress.status}${progress.reason ? ` (${progress.reason})` : ''}`);
  if (progress.cut) console.log(`  cut to its first ${progress.cut.before} stage(s): ${progress.cut.reason}`);
  // The stage's reason whole: the command that failed, its exit code and last lines.
  const u = progress.unjudgeable;
  if (u) console.log(`  stage ${u.stage + 1} (PR #${u.prNumber}): ${formatReason(u.reason, '    ')}`);
  for (const s of progress.results) {
    const scores = s.rounds.map((r) => r.score.toFixed(2)).join(', ');
    const conflicts = s.carry?.conflicts.length ? `, carry conflicts: ${s.carry.conflicts.join(' ')}` : '';
    console.log(`  PR #${s.prNumber}: ${s.status}, rounds ${s.rounds.length} (scores ${scores || '-'})${conflicts}`);
  }
  const live = running ? await liveRound(handle) : undefined;
  if (live)
    console.log(
      `  now: stage ${live.stage + 1} round ${live.round + 1} step ${live.step}, ${live.promptTokens + live.completionTokens} tokens, on ${live.host}`,
    );
}

async function showBatch(client: Client, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  const running = (await handle.describe()).status.name === 'RUNNING';
  const p = running ? await handle.query(batchProgressQuery) : ((await handle.result()) as BatchProgress);
  const started = p.started === undefined ? '' : `started ${p.started}/${p.total}, running ${p.running}; `;
  console.log(
    `${workflowId}: batch ${running ? 'running' : 'finished'}: ${started}accepted ${p.accepted}, rejected ${p.rejected}, failed ${p.failed}, cancelled ${p.cancelled}, skipped ${p.skipped ?? 0}, already run ${p.existing}`,
  );
}

/** `schedules` gives the lines of the schedules section (schedule.ts), printed above the table. */
export async function statusCommand(
  client: Client,
  workflowId?: string,
  schedules?: () => Promise<string[]>,
): Promise<void> {
  if (workflowId) {
    try {
      return await (workflowId.startsWith('batch-') ? showBatch(client, workflowId) : showChain(client, workflowId));
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        throw new InputError(`no chain or batch with id ${workflowId} (\`chainsmith status\` lists them)`);
      throw err;
    }
  }
  const scheduled = (await schedules?.()) ?? [];
  if (scheduled.length) console.log(`${scheduled.join('\n')}\n`);
  const rows: string[][] = [['WORKFLOW ID', 'STATE', 'CHAIN', 'SCAFFOLD', 'STAGE', 'LENGTH', 'STEP', 'TOKENS']];
  const query = `WorkflowType = 'chainWorkflow' OR WorkflowType = 'batchWorkflow' OR WorkflowType = 'scheduledRunWorkflow'`;
  for await (const wf of client.workflow.list({ query })) {
    const attr = (k: string) => String((wf.searchAttributes as Record<string, unknown[]>)?.[k]?.[0] ?? '-');
    const live =
      wf.status.name === 'RUNNING' && wf.type === 'chainWorkflow'
        ? await liveRound(client.workflow.getHandle(wf.workflowId))
        : undefined;
    rows.push([
      wf.workflowId,
      wf.status.name,
      wf.type === 'batchWorkflow'
        ? 'batch'
        : wf.type === 'scheduledRunWorkflow'
          ? 'scheduled run'
          : attr('ChainStatus'),
      attr('ChainScaffold'),
      attr('ChainStage'),
      attr('ChainLength'),
      live ? String(live.step) : '-',
      live ? String(live.promptTokens + live.completionTokens) : '-',
    ]);
    if (rows.length > 200) break;
  }
  if (rows.length === 1 && !scheduled.length)
    return console.log('no chains yet: start some with `chainsmith start --chains FILE`');
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
}
