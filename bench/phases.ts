import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { ArtifactStore } from '../src/artifacts/store';
import type { Config } from '../src/config';
import { TrajectorySchema } from '../src/schemas';

/** Where one chain's wall time went, in seconds, from its workflow history and its saved trajectory. */
export interface Phases {
  /** From the moment the run was asked for to the chain's workflow start (the batch starting its children). */
  start: number;
  /** Chain start to the rollout activity's start: gold check, queries, their waits and workflow tasks. */
  toRollout: number;
  /** The rollout activity less its agent steps: sandbox open and setup, checkpoints, final diffs, the PR's tests. */
  sandbox: number;
  /** The agent's steps (model calls and tool runs), as the trajectory times them; its checkpoints are not in it. */
  steps: number;
  /** Rollout end to the chain's close: judge, export, cleanup. */
  after: number;
  /** Summed over the chain's activities: scheduled to started, time spent waiting for a worker slot or poller. */
  queued: number;
}

export const PHASE_NAMES: Record<keyof Phases, string> = {
  start: 'chain start',
  toRollout: 'gold check + queries',
  sandbox: 'sandbox open + tests + checkpoints',
  steps: 'agent steps',
  after: 'judge + export',
  queued: 'activity queueing',
};

type Event = temporal.api.history.v1.IHistoryEvent;
const ms = (e: Event) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);

/** The chains a batch started (its children), read from the batch's history. */
export async function batchChildren(client: Client, batchId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(batchId).fetchHistory();
  return (history.events ?? []).flatMap(
    (e) => e.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? [],
  );
}

/** The phases of each chain, `t0` (ms) being when the run was asked for. */
export async function chainPhases(
  client: Client,
  config: Config,
  workflowIds: string[],
  t0: number,
): Promise<Phases[]> {
  const store = ArtifactStore.fromConfig(config);
  return Promise.all(
    workflowIds.map(async (id) => {
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const scheduled = new Map<number, Event>();
      const started = new Map<number, Event>();
      let queued = 0;
      let rollout: { from?: number; to?: number } = {};
      let stepsMs = 0;
      for (const e of events) {
        const s = e.activityTaskScheduledEventAttributes;
        if (s) scheduled.set(Number(e.eventId), e);
        const a = e.activityTaskStartedEventAttributes;
        const sched = a ? scheduled.get(Number(a.scheduledEventId)) : undefined;
        if (a && sched) {
          started.set(Number(a.scheduledEventId), e);
          queued += ms(e) - ms(sched);
          if (sched.activityTaskScheduledEventAttributes!.activityType?.name === 'rolloutRound')
            rollout = { from: rollout.from ?? ms(e), to: rollout.to };
        }
        const c = e.activityTaskCompletedEventAttributes;
        const of = c ? scheduled.get(Number(c.scheduledEventId)) : undefined;
        if (c && of?.activityTaskScheduledEventAttributes!.activityType?.name === 'rolloutRound') {
          rollout.to = ms(e);
          const result = JSON.parse(Buffer.from(c.result!.payloads![0].data!).toString()) as { trajectoryRef: string };
          // The conversation's running total: the last round's covers every round before it.
          stepsMs = (await store.getJson(result.trajectoryRef, TrajectorySchema)).elapsedMs ?? 0;
        }
      }
      const [first, last] = [ms(events[0]), ms(events[events.length - 1])];
      if (rollout.from === undefined || rollout.to === undefined)
        throw new Error(`chain ${id} has no completed rollout in its history`);
      return {
        start: (first - t0) / 1000,
        toRollout: (rollout.from - first) / 1000,
        sandbox: (rollout.to - rollout.from - stepsMs) / 1000,
        steps: stepsMs / 1000,
        after: (last - rollout.to) / 1000,
        queued: queued / 1000,
      };
    }),
  );
}
