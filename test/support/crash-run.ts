import { Client, Connection } from '@temporalio/client';
import type { Config } from '../../src/config';
import { startChains } from '../../src/batches/start';
import type { Chain, ScaffoldKind } from '../../src/schemas';
import type { ChainResult } from '../../src/workflows/types';
import { FakeOpenAI } from './fake-openai';
import { agentLatency, longRolloutScript } from './scripted-model';
import { WorkerProcess } from './worker-process';

export interface CrashRun {
  result: ChainResult;
  workflowId: string;
  kills: number;
  /** Agent model calls in all, and how many of them asked for a step that had been asked for before. */
  calls: number;
  redone: number;
  /** Steps redone after each kill, in order (the repeats between it and the next kill, or the end); and before the first. */
  redonePerKill: number[];
  redoneBeforeKills: number;
  /** The worker processes the run had: what they own (warm pooled sandboxes, say) must be gone after it. */
  pids: number[];
}

/**
 * Runs a chain with a long scripted rollout on a `chainsmith worker` process and SIGKILLs that process
 * `kills` times, each right after the agent asked the model for a step (during the model call or the
 * tool run), restarting it every time. A step is "redone" when the model is asked for the same
 * conversation twice.
 */
export async function crashRun(opts: {
  chain: Chain;
  config: Config;
  env: Record<string, string>;
  kills: number;
  notesPerStage: number;
  scaffold?: ScaffoldKind;
}): Promise<CrashRun> {
  const { chain, config, notesPerStage, scaffold } = opts;
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage, scaffold }), { latencyMs: agentLatency(100) });
  const env = { ...opts.env, OPENAI_BASE_URL: await fake.start(), CHAINSMITH_HOME: config.dataDir };
  const taskQueue = `crash-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const worker = new WorkerProcess(taskQueue, env);
  const connection = await Connection.connect({ address: config.temporal.address });
  const pids: number[] = [];
  try {
    worker.start();
    pids.push(worker.pid!);
    const [started] = await startChains(
      new Client({ connection, namespace: config.temporal.namespace }),
      config,
      [chain],
      { policy: 'model', scaffold, taskQueue },
    );
    const done = started.handle.result();
    let finished = false;
    void done.finally(() => (finished = true)).catch(() => undefined);

    const agentCalls = () => fake.requests.filter((r) => r.marker?.caller === 'agent');
    const uniqueSteps = () => new Set(agentCalls().map((r) => JSON.stringify(r.body.messages))).size;
    // Kill only on "note" steps: a kill while the judge or gold validation runs would wait out those
    // activities' start-to-close timeouts, which measures nothing about rollouts.
    const perStage = notesPerStage + 2;
    const eligible = [...Array(chain.prs.length * perStage).keys()].filter(
      (i) => i % perStage >= 1 && i % perStage < notesPerStage,
    );
    const targets = new Set<number>();
    while (targets.size < Math.min(opts.kills, eligible.length))
      targets.add(eligible[Math.floor(Math.random() * eligible.length)]);
    let kills = 0;
    // Calls and distinct steps at each kill: the repeats between two kills are the first one's.
    const marks: Array<[number, number]> = [];
    for (const target of [...targets].sort((a, b) => a - b)) {
      while (!finished && uniqueSteps() <= target) await new Promise((r) => setTimeout(r, 10));
      if (finished) break;
      await new Promise((r) => setTimeout(r, Math.random() * 150));
      marks.push([agentCalls().length, uniqueSteps()]);
      await worker.kill();
      kills += 1;
      worker.start();
      pids.push(worker.pid!);
    }
    const result = await done;
    const calls = agentCalls().length;
    const bounds: Array<[number, number]> = [[0, 0], ...marks, [calls, uniqueSteps()]];
    const repeats = bounds.slice(1).map(([c, u], i) => c - bounds[i][0] - (u - bounds[i][1]));
    return {
      result,
      workflowId: started.workflowId,
      kills,
      calls,
      redone: calls - uniqueSteps(),
      redonePerKill: repeats.slice(1),
      redoneBeforeKills: repeats[0],
      pids,
    };
  } finally {
    await worker.stop();
    await connection.close();
    await fake.stop();
  }
}
