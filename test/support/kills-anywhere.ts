import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import Docker from 'dockerode';
import { readFile } from 'node:fs/promises';
import { startChains } from '../../src/batches/start';
import type { Config } from '../../src/config';
import { datasetPath } from '../../src/dataset/export';
import { RUN_KEY_LABEL, CONTAINER_LABEL } from '../../src/container/docker-container';
import { OWNER_LABEL } from '../../src/container/orphans';
import { TrainingSampleSchema, type Chain } from '../../src/schemas';
import type { ChainResult } from '../../src/workflows/types';
import { FakeOpenAI } from './fake-openai';
import { longRolloutScript } from './scripted-model';
import { WorkerProcess } from './worker-process';
import type { WorkRecord } from '../../src/work-journal';
import { join } from 'node:path';

export interface ChainUnderKills {
  result: ChainResult;
  wallSeconds: number;
  /** From the first worker running to the chain's end: the life kills are drawn over. */
  lifeSeconds: number;
  /** Agent steps asked for again after each kill (a repeat of a conversation already sent to the model). */
  redone: number[];
  /** What was running at each kill: the pending activity types, or 'workflow' between activities. */
  phases: string[];
  /** When each kill came (epoch ms), on the clock the work journal uses. */
  killTimes: number[];
  /** The work journal the worker processes wrote (src/work-journal.ts): every unit's start and end. */
  journal: WorkRecord[];
  /** Dataset rows of this chain beyond the first (a retried export appending twice). */
  duplicates: number;
  /** This run's containers still there after the chain ended and its worker stopped, by their labels. */
  containersLeft: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one chain (scripted model, `notesPerStage` steps a stage, every call, the judge's and the query
 * writer's too, taking `latencyMs`) on a `chainsmith worker` process in `config`'s data directory and
 * SIGKILLs that process at the moments `killAt` gives: seconds of the chain's life, counted while a
 * worker runs (its own boot, bundling the workflows, is no phase of the chain), so wherever the chain is
 * then (gold validation, sandbox setup, a tool step, the tests, the judge, the export, a workflow task).
 * With no `killAt` it runs without kills (to measure how long a chain takes). The workers keep a work
 * journal (src/work-journal.ts) in the data directory, returned with the kill times.
 */
export async function chainUnderKills(opts: {
  chain: Chain;
  config: Config;
  env: Record<string, string>;
  notesPerStage: number;
  latencyMs: number;
  killAt?: number[];
}): Promise<ChainUnderKills> {
  const { chain, config, notesPerStage } = opts;
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage }), { latencyMs: opts.latencyMs });
  const journalFile = join(config.dataDir, 'work-journal.jsonl');
  const env = {
    ...opts.env,
    OPENAI_BASE_URL: await fake.start(),
    CHAINSMITH_HOME: config.dataDir,
    CHAINSMITH_WORK_JOURNAL: journalFile,
  };
  const taskQueue = `kills-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const worker = new WorkerProcess(taskQueue, env);
  const pids = new Set<number>();
  const connection = await Connection.connect({ address: config.temporal.address });
  const t0 = Date.now();
  try {
    worker.start();
    pids.add(worker.pid!);
    const [started] = await startChains(
      new Client({ connection, namespace: config.temporal.namespace }),
      config,
      [chain],
      { policy: 'model', taskQueue },
    );
    let finished = false;
    const done = started.handle.result().finally(() => (finished = true));
    done.catch(() => undefined);

    const agentCalls = () => fake.requests.filter((r) => r.marker?.caller === 'agent');
    const repeats = () => agentCalls().length - new Set(agentCalls().map((r) => JSON.stringify(r.body.messages))).size;
    const phases: string[] = [];
    const repeatsAtKill: number[] = [];
    const killTimes: number[] = [];
    const ready = async (starts: number) => {
      for (let i = 0; i < 600 && (worker.output.match(/running against/g) ?? []).length < starts; i++) await sleep(50);
    };
    await ready(1);
    const readyAt = Date.now();
    // The chain's life so far, in seconds with a worker up: each kill comes when it reaches the next of killAt.
    let life = 0;
    for (const at of [...(opts.killAt ?? [])].sort((a, b) => a - b)) {
      if (finished) break;
      await ready(phases.length + 1);
      const due = Date.now() + Math.max(0, at - life) * 1000;
      while (!finished && Date.now() < due) await sleep(Math.min(20, due - Date.now()));
      if (finished) break;
      life = at;
      const phase = await runningNow(started.handle);
      killTimes.push(Date.now());
      await worker.kill();
      phases.push(phase);
      repeatsAtKill.push(repeats());
      worker.start();
      pids.add(worker.pid!);
    }
    const result = await done;
    const wallSeconds = (Date.now() - t0) / 1000;
    const lifeSeconds = (Date.now() - readyAt) / 1000;
    await worker.stop();
    const marks = [...repeatsAtKill, repeats()];
    const redone = repeatsAtKill.map((_, i) => marks[i + 1] - marks[i]);
    const rows = (await readFile(datasetPath(config.dataDir, 'model'), 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean);
    const ofChain = rows
      .map((l) => TrainingSampleSchema.parse(JSON.parse(l)))
      .filter((r) => r.metadata.repo === chain.repo.name).length;
    const journal = (await readFile(journalFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as WorkRecord);
    return {
      result,
      wallSeconds,
      lifeSeconds,
      redone,
      phases,
      killTimes,
      journal,
      duplicates: Math.max(0, ofChain - 1),
      containersLeft: await containersOf(started.workflowId, pids),
    };
  } finally {
    await worker.stop();
    await connection.close();
    await fake.stop();
  }
}

/** The activity types pending right now (the phase a kill lands in), 'workflow' when none is. */
async function runningNow(handle: WorkflowHandle): Promise<string> {
  const { raw } = await handle.describe();
  const types = (raw.pendingActivities ?? []).map((a) => a.activityType?.name ?? '?');
  return types.length ? [...new Set(types)].sort().join('+') : 'workflow';
}

/** Rollout sandboxes of the run, and one-off containers (gold validation) of the worker processes it had. */
async function containersOf(workflowId: string, pids: Set<number>): Promise<string[]> {
  const all = await new Docker().listContainers({ all: true, filters: { label: [CONTAINER_LABEL] } });
  return all
    .filter((c) => {
      const runKey = c.Labels[RUN_KEY_LABEL] ?? '';
      const [, pid] = (c.Labels[OWNER_LABEL] ?? '').split(':');
      return runKey.startsWith(`${workflowId}/`) || pids.has(Number(pid));
    })
    .map(
      (c) =>
        `${c.State} ${Object.entries(c.Labels)
          .filter(([k]) => k.startsWith('chainsmith.'))
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`,
    );
}
