import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  WorkflowNotFoundError,
  type Client,
  type ScheduleDescription,
} from '@temporalio/client';
import type { Config } from '../config';
import { dateWindow } from '../date-window';
import { InputError } from '../errors';
import { readReposFile } from '../schedule/repos-file';
import type { ScheduledRunInput, ScheduledRunReport, ScheduleMineOptions } from '../workflows/types';
import type { PolicyKind, ScaffoldKind } from '../schemas';
import { scheduledRunWorkflow } from '../workflows';
import { ORCHESTRATION_QUEUE } from '../workflows/task-queues';
import { workflowUrl } from './temporal';

interface ScheduleCreateOptions extends ScheduleMineOptions {
  repos: string;
  every: string;
  policy: PolicyKind;
  scaffold: ScaffoldKind;
  concurrency: number;
  /** Attempts of a failed run (the schedule's retry policy): 1 never retries. */
  attempts: number;
  taskQueue?: string;
  paused?: boolean;
}

/**
 * A Temporal Schedule that mines the listed repositories every interval and starts their new chains.
 * Its input is checked before `connect` is called: a bad repos file or date window is what the user
 * hears of, whether Temporal answers or not, and never a schedule whose every run would fail.
 */
export async function createSchedule(
  connect: () => Promise<Client>,
  config: Config,
  scheduleId: string,
  opts: ScheduleCreateOptions,
): Promise<void> {
  const repos = await readReposFile(opts.repos);
  const { mergedAfter, mergedBefore, maxLength, minConfidence, blameDays, minStrength, requireTests } = opts;
  dateWindow(mergedAfter, mergedBefore);
  const client = await connect();
  const mine = Object.fromEntries(
    Object.entries({
      mergedAfter,
      mergedBefore,
      maxLength,
      minConfidence,
      blameDays,
      minStrength,
      requireTests,
    }).filter(([, v]) => v !== undefined),
  );
  const input: ScheduledRunInput = {
    scheduleId,
    repos,
    mine,
    start: { policy: opts.policy, scaffold: opts.scaffold, concurrency: opts.concurrency },
  };
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: opts.every as `${number}${'m' | 'h' | 'd'}` }] },
      action: {
        type: 'startWorkflow',
        workflowType: scheduledRunWorkflow,
        workflowId: `schedule-${scheduleId}`,
        taskQueue: opts.taskQueue ?? ORCHESTRATION_QUEUE,
        args: [input],
        retry: { maximumAttempts: opts.attempts, initialInterval: '1 minute', backoffCoefficient: 2 },
      },
      // A run still mining (or a long first mine) when the next is due: the next is skipped, not doubled.
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      state: { paused: opts.paused ?? false, note: opts.paused ? 'created paused' : undefined },
      memo: { repos: repos.map((repo) => repo.source), policy: opts.policy, scaffold: opts.scaffold },
    });
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning)
      throw new InputError(`a schedule ${scheduleId} exists already: delete it first, or pick another id`);
    throw err;
  }
  console.log(
    `created schedule ${scheduleId}: every ${opts.every}, ${repos.length} repositories, policy ${opts.policy}, scaffold ${opts.scaffold}${opts.paused ? ' (paused)' : ''}`,
  );
  console.log(
    `  ${config.temporal.uiUrl}/namespaces/${config.temporal.namespace}/schedules/${encodeURIComponent(scheduleId)}`,
  );
}

async function describe(client: Client, scheduleId: string): Promise<ScheduleDescription> {
  try {
    return await client.schedule.getHandle(scheduleId).describe();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError)
      throw new InputError(`no schedule ${scheduleId}: \`chainsmith schedule list\` shows the ones there are`);
    throw err;
  }
}

/** One line per recent run: its state, and what it started or why it failed (from its memo). */
async function runLines(
  client: Client,
  config: Config,
  description: ScheduleDescription,
  limit: number,
): Promise<string[]> {
  const lines: string[] = [];
  for (const action of description.info.recentActions.slice(-limit).reverse()) {
    const workflowId = action.action.workflow.workflowId;
    const run = await client.workflow
      .getHandle(workflowId, action.action.workflow.firstExecutionRunId)
      .describe()
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    if (!run) {
      // Past the namespace's retention: the schedule remembers the run, the server no longer does.
      lines.push(`  ${action.takenAt.toISOString()}  (history expired)  ${workflowId}`);
      continue;
    }
    const memo: Partial<ScheduledRunReport> = (run.memo?.report as ScheduledRunReport | undefined) ?? {};
    const started = (memo.started ?? []).map(
      (s) => `${s.source}: ${s.newChains} new chain(s)${s.batchWorkflowId ? ` → ${s.batchWorkflowId}` : ''}`,
    );
    const failed = (memo.failed ?? []).map((f) => `${f.source} failed: ${f.reason}`);
    lines.push(`  ${action.takenAt.toISOString()}  ${run.status.name}  ${workflowId}`);
    for (const line of [...started, ...failed]) lines.push(`      ${line}`);
    lines.push(`      ${workflowUrl(config, workflowId)}`);
  }
  return lines;
}

/** 86400000 → "1d", 21600000 → "6h": as --every was written. */
function interval(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes % 1440 === 0 ? `${minutes / 1440}d` : minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
}

function headline(d: ScheduleDescription): string {
  const every = d.spec.intervals?.map((i) => `every ${interval(Number(i.every))}`).join(', ') ?? 'by hand';
  const next = d.info.nextActionTimes[0];
  return `schedule ${d.scheduleId}: ${d.state.paused ? `paused${d.state.note ? ` (${d.state.note})` : ''}` : 'active'}, ${every}, ${d.info.numActionsTaken} run(s) so far${next && !d.state.paused ? `, next ${next.toISOString()}` : ''}`;
}

/** The schedules of scheduled runs, each with its last runs: for `schedule list` and `status`. */
export async function scheduleLines(client: Client, config: Config, runsEach: number): Promise<string[]> {
  const lines: string[] = [];
  for await (const summary of client.schedule.list()) {
    if (summary.action?.type !== 'startWorkflow' || summary.action.workflowType !== 'scheduledRunWorkflow') continue;
    const description = await describe(client, summary.scheduleId);
    lines.push(headline(description), ...(await runLines(client, config, description, runsEach)));
  }
  return lines;
}

export async function scheduleCommand(
  client: Client,
  config: Config,
  action: 'describe' | 'pause' | 'resume' | 'delete' | 'trigger',
  scheduleId: string,
): Promise<void> {
  const description = await describe(client, scheduleId);
  const handle = client.schedule.getHandle(scheduleId);
  if (action === 'describe') {
    const input =
      description.action.type === 'startWorkflow'
        ? (description.action.args?.[0] as ScheduledRunInput | undefined)
        : undefined;
    console.log(headline(description));
    if (input)
      console.log(
        `  repositories: ${input.repos.map((r) => r.source).join(', ')}; policy ${input.start.policy}, scaffold ${input.start.scaffold}, ${input.start.concurrency} at a time`,
      );
    for (const line of await runLines(client, config, description, 10)) console.log(line);
    return;
  }
  if (action === 'pause') await handle.pause('paused from the chainsmith CLI');
  if (action === 'resume') await handle.unpause('resumed from the chainsmith CLI');
  if (action === 'delete') await handle.delete();
  // A run still going makes a trigger a no-op under the skip policy, as a due run would be.
  if (action === 'trigger') await handle.trigger();
  const done = {
    pause: 'paused',
    resume: 'resumed',
    delete: 'deleted (runs and batches it started are kept)',
    trigger: 'triggered (skipped if a run is still going)',
  };
  console.log(`schedule ${scheduleId} ${done[action]}`);
}
