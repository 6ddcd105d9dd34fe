import { temporal } from '@temporalio/proto';
import Docker from 'dockerode';
import { ModelClient } from '../src/model/client';
import { runAgent } from '../src/agent/loop';
import { ModelPolicy } from '../src/agent/model-policy';
import { ArtifactStore } from '../src/artifacts/store';
import { startBatch, startChains } from '../src/batches/start';
import type { Config } from '../src/config';
import { runPrTests } from '../src/environments/pr-tests';
import { CARRY_PATCH, carryScript } from '../src/stage/carryover';
import { DockerContainer } from '../src/container/docker-container';
import { baseImageTag } from '../src/environments/images';
import { systemPrompt } from '../src/agent/prompts';
import type { Chain, Trajectory } from '../src/schemas';
import { countTokens } from '../src/dataset/tokens';
import { crashRun } from '../test/support/crash-run';
import { chainUnderKills, type ChainUnderKills } from '../test/support/kills-anywhere';
import { seededRandom } from '../test/support/seeded-random';
import { redoneByKill, type RedoneAfterKill } from './support/redone-work';
import { startEngines, testConfig, type Engines } from '../test/support/engines';
import { FakeOpenAI } from '../test/support/fake-openai';
import { demoChain } from '../test/support/demo-chain';
import { agentLatency, longRolloutScript } from '../test/support/scripted-model';
import type { Figure } from './figure';
import { batchChildren } from './phases';

const log = (line: string) => console.error(`[durability] ${line}`);
const seconds = (t0: number) => (Date.now() - t0) / 1000;

export function renamed(chain: Chain, suffix: string, stages = chain.prs.length): Chain {
  return {
    ...chain,
    id: `${chain.id}-${suffix}`,
    prs: chain.prs.slice(0, stages),
    repo: { ...chain.repo, name: `${chain.repo.name}-${suffix}` },
  };
}

/** A model whose every agent call takes `latencyMs`; the query writer and the judge answer at once. */
async function scriptedModel(chain: Chain, notes: number, latencyMs: number, padChars = 0) {
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: notes, padChars }), {
    latencyMs: agentLatency(latencyMs),
    recordMessages: padChars === 0,
  });
  return { fake, url: await fake.start() };
}

/** Runs `body` with the engines' workers polling; a Temporal worker runs once, so one call per section. */
export async function withWorkers<T>(engines: Engines, body: () => Promise<T>): Promise<T> {
  const done = body();
  try {
    await Promise.all(engines.workers.map((w) => w.runUntil(done)));
    return await done;
  } finally {
    await engines.close();
  }
}

/** Runs chains on the (running) workers until they all finish; returns wall seconds. */
export async function orchestrated(
  engines: Engines,
  config: Config,
  chains: Chain[],
  concurrency?: number,
): Promise<number> {
  return (await orchestratedRuns(engines, config, chains, concurrency)).seconds;
}

/** As orchestrated, with the chains' workflow ids and the moment (ms) the run was asked for. */
export async function orchestratedRuns(
  engines: Engines,
  config: Config,
  chains: Chain[],
  concurrency?: number,
): Promise<{ seconds: number; workflowIds: string[]; t0: number }> {
  const t0 = Date.now();
  if (concurrency) {
    const batch = await startBatch(engines.client, config, chains, {
      policy: 'model',
      taskQueue: engines.taskQueue,
      concurrency,
    });
    const counts = await batch.handle.result();
    // Rollouts that failed or never ran finish early: their batch's wall time would flatter it.
    if (counts.accepted + counts.rejected !== chains.length)
      throw new Error(`the batch did not roll every chain out: ${JSON.stringify(counts)}`);
    return { seconds: seconds(t0), workflowIds: await batchChildren(engines.client, batch.workflowId), t0 };
  }
  const started = await startChains(engines.client, config, chains, { policy: 'model', taskQueue: engines.taskQueue });
  await Promise.all(started.map((x) => x.handle.result()));
  return { seconds: seconds(t0), workflowIds: started.map((x) => x.workflowId), t0 };
}

/**
 * The same agent loop with no Temporal and no checkpoints: per stage a sandbox, the carry, the PR's
 * agent, the tests after. What mini-swe-agent-style harnesses do.
 */
async function bare(config: Config, chain: Chain, baseUrl: string): Promise<number> {
  const docker = new Docker();
  const client = new ModelClient({ baseUrl: baseUrl, retry: { attempts: 1, baseDelayMs: 0 } });
  const t0 = Date.now();
  let carry: string | undefined;
  let messages: Trajectory['messages'] = [{ role: 'system', content: systemPrompt('The project is installed.') }];
  for (let stage = 0; stage < chain.prs.length; stage++) {
    const sandbox = await DockerContainer.create(docker, {
      image: baseImageTag(),
      mirrorPath: chain.repo.path,
      labels: { 'chainsmith.bench': 'bare' },
      memoryMb: config.sandbox.memoryMb,
      pidsLimit: config.sandbox.pidsLimit,
    });
    try {
      if (carry !== undefined) await sandbox.writeFile(CARRY_PATCH, carry);
      const setup = await sandbox.exec(
        `mkdir -p /work/.chainsmith && (\n${carryScript(chain, stage, { carry: carry !== undefined, progress: false })}\n)`,
        {
          timeoutSeconds: 600,
          maxOutputChars: 20_000,
          cwd: '/work',
        },
      );
      if (setup.exitCode !== 0) throw new Error(setup.output);
      messages = [...messages, { role: 'user', content: `Task ${stage + 1} of ${chain.prs.length}: continue.` }];
      const run = await runAgent({
        policy: new ModelPolicy(client, 'scripted'),
        sandbox,
        trajectory: {
          policy: 'model',
          messages,
          usage: { promptTokens: 0, completionTokens: 0 },
          toolCalls: 0,
          steps: 0,
        },
        limits: { ...config.agent, maxSteps: 10_000 },
        stepsThisRound: 0,
        onStep: async () => undefined,
      });
      messages = run.trajectory.messages;
      await sandbox.exec('git add -A', { timeoutSeconds: 60, maxOutputChars: 1000 });
      carry = (
        await sandbox.exec(`git diff --cached --binary ${chain.prs[stage].mergeSha}`, {
          timeoutSeconds: 60,
          maxOutputChars: 64 << 20,
        })
      ).output;
      await runPrTests(
        sandbox,
        chain.repo.path,
        chain.prs[stage],
        { runner: 'pytest', test: config.sandbox.testCommand },
        600,
      );
    } finally {
      await sandbox.destroy();
    }
  }
  return seconds(t0);
}

/** Gold validation is cached per PR: warm it so the timed runs measure rollouts, not a one-off. */
export async function warmGoldCache(engines: Engines, config: Config, chain: Chain) {
  const [s] = await startChains(engines.client, config, [renamed(chain, 'warm')], {
    policy: 'gold-replay',
    taskQueue: engines.taskQueue,
  });
  await s.handle.result();
}

async function overheadRatio(): Promise<Figure[]> {
  const chain = await demoChain('bench-overhead');
  const { fake, url } = await scriptedModel(chain, 15, 300);
  const config = testConfig({ OPENAI_BASE_URL: url, CHAINSMITH_MODEL: 'scripted' });
  const engines = await startEngines(config);
  return withWorkers(engines, async () => {
    await warmGoldCache(engines, config, chain);
    const bareTimes: number[] = [];
    const orchestratedTimes: number[] = [];
    for (let i = 0; i < 2; i++) {
      bareTimes.push(await bare(config, chain, url));
      orchestratedTimes.push(await orchestrated(engines, config, [renamed(chain, `o${i}`)]));
      log(
        `overhead run ${i + 1}: bare ${bareTimes[i].toFixed(1)} s, orchestrated ${orchestratedTimes[i].toFixed(1)} s`,
      );
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return [
      {
        measure: 'overhead_ratio',
        value: round(sum(orchestratedTimes) / sum(bareTimes), 3),
        unit: 'ratio',
        goal: '<= 1.02 (orchestrated / bare, 3 stages x 17 steps at 300 ms a model call)',
      },
    ];
  }).finally(() => fake.stop());
}

async function historyOf1000Steps(): Promise<Figure[]> {
  const chain = renamed(await demoChain('bench-history'), 'h', 1);
  // ~18,000 characters of prose-like text a step: 1,000 steps make a transcript of about 3M tokens.
  const { fake, url } = await scriptedModel(chain, 1000, 0, 18_000);
  const config = testConfig({ OPENAI_BASE_URL: url, CHAINSMITH_MODEL: 'scripted', CHAINSMITH_MAX_STEPS: '1100' });
  const engines = await startEngines(config);
  return withWorkers(engines, async () => {
    const t0 = Date.now();
    const [started] = await startChains(engines.client, config, [chain], {
      policy: 'model',
      taskQueue: engines.taskQueue,
    });
    const result = await started.handle.result();
    const history = await started.handle.fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    const store = ArtifactStore.fromConfig(config);
    const transcript = await store.getText(result.results[0].finalRound!.trajectoryRef);
    const tokens = countTokens(transcript);
    log(
      `1,000-step rollout: ${result.status} in ${seconds(t0).toFixed(0)} s; transcript ${(transcript.length / 1e6).toFixed(1)} MB, ${(tokens / 1e6).toFixed(2)}M tokens; history ${(bytes / 1024).toFixed(1)} KiB, ${history.events?.length} events`,
    );
    return [
      {
        measure: 'history_mb_1000_steps',
        value: round(bytes / 1e6, 4),
        unit: 'MB',
        goal: `<= 5 (a 1,000-step rollout with ${(tokens / 1e6).toFixed(2)}M tokens of transcript)`,
      },
    ];
  }).finally(() => fake.stop());
}

async function stepsRedonePerKill(): Promise<Figure[]> {
  const chain = await demoChain('bench-crash');
  const env = { OPENAI_API_KEY: 'sk-bench', CHAINSMITH_MODEL: 'scripted', CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3' };
  const run = await crashRun({ chain, config: testConfig(env), env, kills: 20, notesPerStage: 10 });
  log(`crash run: ${run.result.status}, ${run.kills} SIGKILLs, ${run.redone} of ${run.calls} agent calls were repeats`);
  // Agent model calls only, and a mean: these kills all land 0-150 ms after an agent step's model request (the anywhere section counts every unit per kill).
  return [
    {
      measure: 'steps_redone_per_kill_mid_step',
      value: round(run.redone / run.kills, 3),
      unit: 'steps/kill',
      goal: `<= 1 (${run.kills} SIGKILLs of the worker mid-rollout)`,
    },
  ];
}

/**
 * SIGKILLs at moments drawn (seeded) uniformly over a chain's whole life, gold validation to export,
 * each chain in a data directory of its own so gold validation really runs (it is cached per store),
 * until KILLS kills. Every call of the model takes LATENCY_MS, the judge's and the query writer's too,
 * so kills land in them as often as their share of the chain's time. What each kill made chainsmith do
 * again comes from the workers' work journal (src/work-journal.ts, bench/support/redone-work.ts).
 */
async function killsAnywhere(): Promise<Figure[]> {
  const KILLS = Number(process.env.CHAINSMITH_BENCH_KILLS ?? 30);
  const PER_CHAIN = 3;
  const NOTES = 6;
  const LATENCY_MS = 300;
  const random = seededRandom(Number(process.env.CHAINSMITH_BENCH_SEED ?? 26));
  const base = await demoChain('bench-anywhere');
  const env = { OPENAI_API_KEY: 'sk-bench', CHAINSMITH_MODEL: 'scripted', CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3' };
  const calm = await chainUnderKills({
    chain: renamed(base, 'calm'),
    config: testConfig(env),
    env,
    notesPerStage: NOTES,
    latencyMs: LATENCY_MS,
  });
  const calmRedone = redoneByKill(calm.journal, []).withoutKill;
  log(
    `one chain without kills: ${calm.result.status}, ${calm.lifeSeconds.toFixed(1)} s of life; ${calm.journal.length / 2} pieces of work journaled, ${calmRedone} started twice`,
  );
  const runs: ChainUnderKills[] = [];
  const perKill: RedoneAfterKill[] = [];
  let withoutKill = calmRedone;
  // Bounded: twice the chains the kills need (a chain that ran faster than the calm one leaves its late kills undone).
  for (let i = 0; perKill.length < KILLS && i < (2 * KILLS) / PER_CHAIN; i++) {
    const killAt = [...Array(PER_CHAIN)].map(() => random() * calm.lifeSeconds);
    const run = await chainUnderKills({
      chain: renamed(base, `k${i}`),
      config: testConfig(env),
      env,
      notesPerStage: NOTES,
      latencyMs: LATENCY_MS,
      killAt,
    });
    const redone = redoneByKill(run.journal, run.killTimes);
    withoutKill += redone.withoutKill;
    perKill.push(...redone.perKill);
    log(
      `chain ${i + 1}: ${run.result.status} in ${run.lifeSeconds.toFixed(1)} s, kills at ${[...killAt]
        .sort((a, b) => a - b)
        .map((x) => x.toFixed(1))
        .join(', ')} s of life during ${run.phases.join(', ') || 'nothing'}; ` +
        `redone per kill: ${redone.perKill.map((r) => `${r.units} units ${r.seconds.toFixed(1)} s [${[...r.what].map(([w, n]) => `${w} ${n}`).join(', ')}]`).join('; ')}`,
    );
    for (const left of run.containersLeft) log(`  left behind: ${left}`);
    runs.push(run);
  }
  const phases = new Map<string, number>();
  for (const p of runs.flatMap((r) => r.phases)) phases.set(p, (phases.get(p) ?? 0) + 1);
  const where = [...phases].map(([p, n]) => `${p} ${n}`).join(', ');
  const what = new Map<string, number>();
  for (const r of perKill) for (const [w, n] of r.what) what.set(w, (what.get(w) ?? 0) + n);
  const from =
    [...what]
      .sort((a, b) => b[1] - a[1])
      .map(([w, n]) => `${w} ${n}`)
      .join(', ') || 'nothing';
  const worst = perKill.reduce((a, r) => (r.units > a.units ? r : a), perKill[0]);
  const notAccepted = runs.filter((r) => r.result.status !== 'accepted').length;
  const context = `${perKill.length} SIGKILLs at seeded uniform moments over ${runs.length} chains of 3 stages, ${LATENCY_MS} ms a model call (${where}); ${notAccepted} chain(s) not accepted`;
  const units = perKill.map((r) => r.units);
  return [
    {
      measure: 'redone_units_per_kill_max',
      value: Math.max(0, ...units),
      unit: 'units',
      goal: `<= 1 (${context}; units a kill made run again, model calls, test commands and environment builds, in all: ${from}; the worst kill: ${[...(worst?.what ?? [])].map(([w, n]) => `${w} ${n}`).join(', ')})`,
    },
    {
      measure: 'redone_units_per_kill',
      value: round(units.reduce((a, b) => a + b, 0) / Math.max(1, units.length), 3),
      unit: 'units/kill',
      goal: `context: the mean (${context})`,
    },
    {
      measure: 'redone_completed_units_per_kill_max',
      value: Math.max(0, ...perKill.map((r) => r.completed)),
      unit: 'units',
      goal: `0: units that had finished before the kill and ran again, their result lost (${context})`,
    },
    {
      measure: 'redone_seconds_per_kill_p95',
      value: round(
        quantile(
          perKill.map((r) => r.seconds),
          0.95,
        ),
        2,
      ),
      unit: 's',
      goal: `context: seconds the runs a kill made run again had spent before it, units, sandbox opens and agent actions (${context}; max ${round(Math.max(0, ...perKill.map((r) => r.seconds)), 2)})`,
    },
    {
      measure: 'redone_units_without_kill',
      value: withoutKill,
      unit: 'units',
      goal: `0: work started twice with no kill between (an unstable id, or the product repeating itself), the calm chain included (${context})`,
    },
    {
      measure: 'dataset_duplicates_under_kills',
      value: runs.reduce((a, r) => a + r.duplicates, 0),
      unit: 'rows',
      goal: `0 (${context})`,
    },
    {
      measure: 'containers_left_under_kills',
      value: runs.reduce((a, r) => a + r.containersLeft.length, 0),
      unit: 'containers',
      goal: `0 (${context})`,
    },
  ];
}

/** The q-quantile by nearest rank. */
function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

const SECTIONS: Record<string, () => Promise<Figure[]>> = {
  overhead: overheadRatio,
  history: historyOf1000Steps,
  crash: stepsRedonePerKill,
  anywhere: killsAnywhere,
};

/** All sections in turn; CHAINSMITH_BENCH_ONLY=history,crash runs some of them. */
export async function run(): Promise<Figure[]> {
  const only = process.env.CHAINSMITH_BENCH_ONLY?.split(',');
  const figures: Figure[] = [];
  for (const [name, section] of Object.entries(SECTIONS))
    if (!only || only.includes(name)) figures.push(...(await section()));
  return figures;
}
