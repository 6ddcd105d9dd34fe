import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { RUN_KEY_LABEL, CONTAINER_LABEL } from '../src/container/docker-container';
import { OWNER_LABEL, ownerLabel } from '../src/container/orphans';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Environment } from '../src/environments/builder';
import { environmentsFrom } from '../src/environments/from-config';
import { baseImageTag } from '../src/environments/images';
import { checkoutLines } from '../src/container/checkout';
import { DockerContainer } from '../src/container/docker-container';
import { prTestCommand, prTestFiles } from '../src/environments/pr-tests';
import type { Chain } from '../src/schemas';
import type { WorkRecord } from '../src/work-journal';
import { startEngines, testConfig } from '../test/support/engines';
import { FakeOpenAI } from '../test/support/fake-openai';
import { orchestratedRuns, renamed, withWorkers } from './durability';
import type { Figure } from './figure';
import { chainPhases, PHASE_NAMES, type Phases } from './phases';
import { JINJA_PR, jinjaAgent, jinjaStage, LATENCY, lognormalLatency } from './support/real-workload';

// `npm run bench -- concurrency 32,64` (or CHAINSMITH_BENCH_LEVELS=32) measures some levels;
// CHAINSMITH_BENCH_SAMPLES batches per level (1 by default: 128 real rollouts take long on 2 cores).
const LEVELS = (process.argv[3] ?? process.env.CHAINSMITH_BENCH_LEVELS)?.split(',').map(Number) ?? [32, 64, 128];
const SAMPLES = Number(process.env.CHAINSMITH_BENCH_SAMPLES ?? 1);
const SEED = Number(process.env.CHAINSMITH_BENCH_SEED ?? 26);

const log = (line: string) => console.error(`[concurrency] ${line}`);
const round = (x: number, digits: number) => Number(x.toFixed(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU time the whole machine has spent (all cores, all processes, other users' too), in seconds. */
function machineCpuSeconds(): number {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq) / 100;
}

const ownCpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** The live processes whose name matches. */
function pidsOf(name: RegExp): string[] {
  return readdirSync('/proc').filter((d) => {
    if (!/^\d+$/.test(d)) return false;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      return name.test(stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
    } catch {
      return false; // Gone between the listing and the read.
    }
  });
}

/** CPU seconds of these processes, children they reaped included; one that has gone counts nothing. */
function pidsCpuSeconds(pids: string[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      ticks += stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .slice(11, 15)
        .map(Number)
        .reduce((a, b) => a + b, 0);
    } catch {
      // Gone.
    }
  }
  return ticks / 100;
}

/** CPU seconds of the live processes whose name matches, children they reaped included. */
const processCpuSeconds = (name: RegExp) => pidsCpuSeconds(pidsOf(name));

/** Where the machine's CPU goes, besides the sandboxes (counted per container). */
const DOCKER = /^(dockerd|containerd|containerd-shim.*|runc|docker-proxy)$/;
const TEMPORAL = /^temporal$/;

/**
 * Cores the rest of the machine (other users, mostly) keeps busy while this bench idles, over
 * `seconds`: machine CPU less this process, Docker's daemons and the Temporal server.
 */
async function othersCores(seconds: number): Promise<number> {
  const ours = () => ownCpuSeconds() + processCpuSeconds(DOCKER) + processCpuSeconds(TEMPORAL);
  const [machine0, ours0] = [machineCpuSeconds(), ours()];
  await new Promise((r) => setTimeout(r, seconds * 1000));
  return Math.max(0, machineCpuSeconds() - machine0 - (ours() - ours0)) / seconds;
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

/**
 * The high-water mark of memory (cgroup v1 `memory.max_usage_in_bytes`, page cache included) and the
 * CPU time (`cpuacct.usage`) of every sandbox of this run, read every second while it runs: both only
 * rise, so a late read loses at most the last second of a sandbox's life. A round that took a
 * container from the (in-process) workers' pool has no run label: the pool's containers count by
 * their owner, this process, their CPU as the sandboxes'; peaks are only of round containers (named
 * for their rounds, round-container.ts), so that idle warm ones do not lower the figure.
 */
function sandboxUsage(docker: Docker, runKeyPart: string) {
  const owner = ownerLabel()[OWNER_LABEL];
  const peaks = new Map<string, number>();
  const cpu = new Map<string, number>();
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      const all = await docker.listContainers({ filters: { label: [CONTAINER_LABEL] } }).catch(() => []);
      const mine = all.filter((c) => c.Labels[RUN_KEY_LABEL]?.includes(runKeyPart) || c.Labels[OWNER_LABEL] === owner);
      for (const c of mine) {
        try {
          const bytes = Number(readFileSync(`/sys/fs/cgroup/memory/docker/${c.Id}/memory.max_usage_in_bytes`, 'utf8'));
          if (c.Names[0]?.startsWith('/chainsmith-')) peaks.set(c.Id, Math.max(bytes, peaks.get(c.Id) ?? 0));
          const ns = Number(readFileSync(`/sys/fs/cgroup/cpuacct/docker/${c.Id}/cpuacct.usage`, 'utf8'));
          cpu.set(c.Id, Math.max(ns, cpu.get(c.Id) ?? 0));
        } catch {
          // Removed between the listing and the read.
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  const running = poll();
  return {
    async stop(): Promise<{ peaks: number[]; cpuSeconds: number }> {
      stopped = true;
      await running;
      return { peaks: [...peaks.values()], cpuSeconds: [...cpu.values()].reduce((a, b) => a + b, 0) / 1e9 };
    },
  };
}

interface Split {
  workers: number;
  sandboxes: number;
  docker: number;
  temporal: number;
  others: number;
  rest: number;
}

/** What one run (one rollout alone, or a batch) left to read. */
interface Run {
  wall: number;
  workflowIds: string[];
  t0: number;
  /** Per rollout: seconds its model calls took (the work journal's `model` records of its workflow). */
  modelSeconds: number[];
  /** Per rollout: when its agent's last action ended, seconds from the run's start. */
  agentDone: number[];
  /** Per rollout: when it closed, seconds from the run's start. */
  closed: number[];
  journal: WorkRecord[];
}

interface Level {
  concurrency: number;
  single: Run;
  /** The workers' CPU seconds from the single rollout's agent end to its close (judge, export, workflow tasks). */
  endWorkerCpu: number;
  batches: Run[];
  efficiencies: number[];
  ceilings: number[];
  machineCpuPerRollout: number[];
  /** Per rollout: the workers (this process, the stand-in model's HTTP server with them), sandboxes, Docker's daemons, the Temporal server, other users (their rate just before), what is left. */
  split: Split[];
  /** Machine CPU over the batch's wall time and all cores. */
  busy: number[];
  othersCores: number[];
  peakMb: number[];
  /** One rollout alone's phases, then per sample the median chain's and the last chain to close's. */
  singlePhases: Phases;
  phases: { median: Phases; last: Phases }[];
  drawnVsJournaled: string[];
}

/**
 * CPU seconds one run of the stage's tests takes in its sandbox (the container's cgroup), at the merge
 * as the rollouts' trees are after the agent applied the PR: what every rollout's end runs, measured
 * once, alone, before anything is timed.
 */
async function testCpuSeconds(docker: Docker, chain: Chain, image: string, command: string): Promise<number> {
  const sandbox = await DockerContainer.create(docker, {
    image,
    mirrorPath: chain.repo.path,
    labels: { 'chainsmith.bench': 'concurrency' },
    memoryMb: 2048,
    pidsLimit: 512,
  });
  try {
    const out = await sandbox.exec(`set -e\n${checkoutLines(chain.prs[0].mergeSha).join('\n')}`, {
      timeoutSeconds: 300,
      maxOutputChars: 4000,
      cwd: '/work',
    });
    if (out.exitCode !== 0) throw new Error(`checkout failed: ${out.output}`);
    const usage = () =>
      Number(readFileSync(`/sys/fs/cgroup/cpuacct/docker/${sandbox.container.id}/cpuacct.usage`, 'utf8')) / 1e9;
    const before = usage();
    await sandbox.exec(command, { timeoutSeconds: 600, maxOutputChars: 4000 });
    return usage() - before;
  } finally {
    await sandbox.destroy();
  }
}

/** The work journal's lines since `from` (a byte offset), and the new offset. */
function journalSince(file: string, from: number): { records: WorkRecord[]; offset: number } {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // Nothing journaled yet.
  }
  return {
    records: text
      .slice(from)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as WorkRecord),
    offset: text.length,
  };
}

/** Per rollout (by workflow id): its model seconds, its agent's end and its close, from the journal and the phases. */
function perRollout(
  journal: WorkRecord[],
  workflowIds: string[],
  t0: number,
  phases: Phases[],
): Pick<Run, 'modelSeconds' | 'agentDone' | 'closed'> {
  const starts = new Map<string, number>();
  const of = (id: string) => workflowIds.find((w) => id.startsWith(`${w}/`));
  const model = new Map<string, number>();
  const done = new Map<string, number>();
  for (const r of journal) {
    const w = of(r.id);
    if (!w) continue;
    if (r.ev === 'start') starts.set(`${r.pid} ${r.id}`, r.t);
    else {
      const start = starts.get(`${r.pid} ${r.id}`) ?? r.t;
      if (r.kind === 'model') model.set(w, (model.get(w) ?? 0) + (r.t - start) / 1000);
      if (r.kind === 'action') done.set(w, Math.max(done.get(w) ?? 0, (r.t - t0) / 1000));
    }
  }
  return {
    modelSeconds: workflowIds.map((w) => model.get(w) ?? 0),
    agentDone: workflowIds.map((w) => done.get(w) ?? 0),
    closed: phases.map(total),
  };
}

/**
 * Rollouts of a real stage (Jinja #1465, bench/support/real-workload.ts): one alone, then
 * `concurrency` started at once (a batch with that concurrency), SAMPLES times. Each rollout's model
 * calls take lognormal latencies (median 4 s, p95 20 s) seeded per rollout; the stage's environment
 * image is built before anything is timed, but gold validation is not warmed: its cache is emptied
 * before every run, the one alone included.
 */
async function level(concurrency: number, chain: Chain, env: Environment, testCpu: number): Promise<Level> {
  const { script } = jinjaAgent(chain, env);
  const { latency, drawn } = lognormalLatency(SEED);
  const fake = new FakeOpenAI(script, { latencyMs: latency, recordMessages: false });
  const config = testConfig({ OPENAI_BASE_URL: await fake.start(), CHAINSMITH_MODEL: 'scripted' });
  const journalFile = join(config.dataDir, 'work-journal.jsonl');
  process.env.CHAINSMITH_WORK_JOURNAL = journalFile;
  const engines = await startEngines(config, { maxSandboxes: concurrency });
  const docker = new Docker();
  let offset = 0;
  // The validations and the test runs they keep (gold-validation.ts): nothing of an earlier run's gold validation is reused.
  const coldGold = () =>
    Promise.all(
      ['gold-tests', 'gold-runs'].map((p) =>
        rm(join(config.dataDir, 'artifacts', 'pointers', p), { recursive: true, force: true }),
      ),
    );
  const runOf = async (chains: Chain[], n?: number): Promise<Run & { phases: Phases[] }> => {
    await coldGold();
    const runs = await orchestratedRuns(engines, config, chains, n);
    const read = journalSince(journalFile, offset);
    offset = read.offset;
    const phases = await chainPhases(engines.client, config, runs.workflowIds, runs.t0);
    return {
      wall: runs.seconds,
      workflowIds: runs.workflowIds,
      t0: runs.t0,
      journal: read.records,
      phases,
      ...perRollout(read.records, runs.workflowIds, runs.t0, phases),
    };
  };
  try {
    return await withWorkers(engines, async () => {
      const cpuBefore = ownCpuSeconds();
      const single = await runOf([renamed(chain, `c${concurrency}solo`, 1)]);
      // The workers' CPU of the one alone's end is taken as its share of its whole run's worker CPU: the end's wall share.
      const endWorkerCpu = ((ownCpuSeconds() - cpuBefore) * (single.closed[0] - single.agentDone[0])) / single.wall;
      const out: Level = {
        concurrency,
        single,
        endWorkerCpu,
        batches: [],
        efficiencies: [],
        ceilings: [],
        machineCpuPerRollout: [],
        split: [],
        busy: [],
        othersCores: [],
        peakMb: [],
        singlePhases: single.phases[0],
        phases: [],
        drawnVsJournaled: [],
      };
      log(
        `${concurrency}: one alone ${single.wall.toFixed(1)} s, of which model calls ${single.modelSeconds[0].toFixed(1)} s; its end (agent done to close) ${(single.closed[0] - single.agentDone[0]).toFixed(1)} s; ${uptime()}`,
      );
      for (let s = 0; s < SAMPLES; s++) {
        const many = [...Array(concurrency).keys()].map((i) => renamed(chain, `c${concurrency}s${s}r${i}`, 1));
        const others = await othersCores(10);
        const usage = sandboxUsage(docker, `c${concurrency}s${s}r`);
        const drawn0 = [...drawn.values()].flat().reduce((a, b) => a + b, 0);
        const [machine0, own0, docker0, temporal0] = [
          machineCpuSeconds(),
          ownCpuSeconds(),
          processCpuSeconds(DOCKER),
          processCpuSeconds(TEMPORAL),
        ];
        const batch = await runOf(many, concurrency);
        const wall = batch.wall;
        const per = (x: number) => x / concurrency;
        const machine = per(machineCpuSeconds() - machine0);
        const sandboxes = await usage.stop();
        const split: Split = {
          workers: per(ownCpuSeconds() - own0),
          sandboxes: per(sandboxes.cpuSeconds),
          docker: per(processCpuSeconds(DOCKER) - docker0),
          temporal: per(processCpuSeconds(TEMPORAL) - temporal0),
          // Other users at the rate they ran just before; the rest is what no counter here sees
          // (containerd shims and runc, which exit with their containers) and how others' load moved.
          others: per(others * wall),
          rest: 0,
        };
        split.rest = machine - split.workers - split.sandboxes - split.docker - split.temporal - split.others;
        const { efficiency, ceiling, ideal, ceilingWall } = bounds(single, batch, testCpu + endWorkerCpu);
        const busy = (machine * concurrency) / (wall * cpus().length);
        const drawnSeconds = ([...drawn.values()].flat().reduce((a, b) => a + b, 0) - drawn0) / 1000;
        const journaled = batch.modelSeconds.reduce((a, b) => a + b, 0);
        out.drawnVsJournaled.push(`drawn ${drawnSeconds.toFixed(0)} s, journaled ${journaled.toFixed(0)} s`);
        out.batches.push(batch);
        out.efficiencies.push(efficiency);
        out.ceilings.push(ceiling);
        out.machineCpuPerRollout.push(machine);
        out.split.push(split);
        out.busy.push(busy);
        out.othersCores.push(others);
        out.peakMb.push(...sandboxes.peaks.map((b) => b / 2 ** 20));
        const closes = batch.phases.map(total);
        out.phases.push({
          median: medianPhases(batch.phases),
          last: batch.phases[closes.indexOf(Math.max(...closes))],
        });
        log(
          `${concurrency} at once, sample ${s + 1}: ${wall.toFixed(1)} s against an ideal ${ideal.toFixed(1)} s (the slowest rollout's model time and one alone's other time), efficiency ${efficiency.toFixed(3)}; ` +
            `CPU ceiling ${ceiling.toFixed(3)} (ends can finish no sooner than ${ceilingWall.toFixed(1)} s); model time drawn vs journaled: ${out.drawnVsJournaled[s]}; ` +
            `machine busy ${(busy * 100).toFixed(0)} %, other users ${others.toFixed(2)} cores before; CPU a rollout: machine ${machine.toFixed(2)} s = ${describe(split)}; ` +
            `phases (s), median chain: ${describePhases(out.phases[s].median)}; last to close: ${describePhases(out.phases[s].last)}; alone: ${describePhases(out.singlePhases)}; ${uptime()}`,
        );
      }
      return out;
    });
  } finally {
    delete process.env.CHAINSMITH_WORK_JOURNAL;
    await fake.stop();
  }
}

/**
 * Efficiency, and the ceiling the rollouts' ends put on it.
 *
 * Rollouts draw different latencies, so N at once cannot end sooner than the slowest of them would
 * alone: the ideal is the largest of (a rollout's model seconds + one alone's other seconds), and
 * efficiency is that ideal over the batch's wall.
 *
 * The ceiling: a rollout's end (its tests after the agent, the judge, the export) cannot begin before
 * its agent is done, at the earliest its ideal less one alone's end. Sorted by that moment f(1) ≤ … ≤
 * f(N), the ends from the k-th on all need the cores after f(k): the batch lasts at least f(k) + (N − k
 * + 1) · E / cores for every k, where E is one end's CPU (the tests' cgroup CPU measured alone, and the
 * workers' CPU of one alone's end). The ceiling is the ideal over the largest of those and the ideal.
 */
function bounds(
  single: Run,
  batch: Run,
  endCpu: number,
): { efficiency: number; ceiling: number; ideal: number; ceilingWall: number } {
  const other = single.wall - single.modelSeconds[0];
  const end = single.closed[0] - single.agentDone[0];
  const ideals = batch.modelSeconds.map((m) => m + other);
  const ideal = Math.max(...ideals);
  const agentDone = ideals.map((x) => x - end).sort((a, b) => a - b);
  const n = agentDone.length;
  const ceilingWall = Math.max(ideal, ...agentDone.map((f, k) => f + ((n - k) * endCpu) / cpus().length));
  return { efficiency: ideal / batch.wall, ceiling: ideal / ceilingWall, ideal, ceilingWall };
}

/** Where a level breaks and why: with the machine busy, CPU (and whose: ours or other users'); then which phases of the last chain to close grew against one rollout alone (phases.ts). */
function diagnosis(l: Level): string {
  const busy = median(l.busy);
  const split = Object.fromEntries(
    Object.keys(l.split[0]).map((k) => [k, median(l.split.map((s) => s[k as keyof Split]))]),
  ) as unknown as Split;
  const ours = split.workers + split.sandboxes + split.docker + split.temporal;
  const [top, topSeconds] = Object.entries(split).sort((a, b) => b[1] - a[1])[0];
  const bound =
    busy >= 0.85
      ? `CPU-bound: the machine was ${(busy * 100).toFixed(0)} % busy, most of it ${top} (${topSeconds.toFixed(2)} s a rollout)`
      : `not CPU-bound on average (machine ${(busy * 100).toFixed(0)} % busy over the batch)`;
  return `${bound}; ${growth(l)}; ours ${ours.toFixed(2)} s CPU a rollout (unattributed ${split.rest.toFixed(2)} s more), other users ${median(l.othersCores).toFixed(2)} cores before the batch`;
}

/** A chain's wall time: its phases but the queueing, which they include. */
const total = (p: Phases) => p.start + p.toRollout + p.sandbox + p.steps + p.after;

const medianPhases = (ps: Phases[]) =>
  Object.fromEntries(
    Object.keys(ps[0]).map((k) => [k, median(ps.map((p) => p[k as keyof Phases]))]),
  ) as unknown as Phases;

const describePhases = (p: Phases) =>
  (Object.keys(PHASE_NAMES) as (keyof Phases)[]).map((k) => `${PHASE_NAMES[k]} ${p[k].toFixed(1)}`).join(', ');

/** Which phases the last chain to close spent longer in than one rollout alone, largest first (median over samples). */
function growth(l: Level): string {
  const last = medianPhases(l.phases.map((p) => p.last));
  const grown = (Object.keys(PHASE_NAMES) as (keyof Phases)[])
    .filter((k) => k !== 'queued')
    .map((k) => [k, last[k] - l.singlePhases[k]] as const)
    .sort((a, b) => b[1] - a[1]);
  return `the last chain to close took ${(total(last) - total(l.singlePhases)).toFixed(1)} s longer than one alone: ${grown.map(([k, d]) => `${PHASE_NAMES[k]} ${d >= 0 ? '+' : ''}${d.toFixed(1)}`).join(', ')} (of which queued for a worker slot ${(last.queued - l.singlePhases.queued).toFixed(1)})`;
}

const describe = (split: Split) =>
  Object.entries(split)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(' + ');

/** The goal asked of each level: of the efficiency at 32, of the efficiency against its ceiling above. */
const GOALS = { efficiency32: 0.9, vsCeiling: 0.95 };

export async function run(): Promise<Figure[]> {
  log(`before: ${uptime()}`);
  const chain = await jinjaStage();
  const docker = new Docker();
  // The environment image is built (or found) before anything is timed; gold validation is not.
  const env = await environmentsFrom(testConfig(), docker, baseImageTag()).forStage(chain, 0);
  const testCpu = await testCpuSeconds(docker, chain, env.image, prTestCommand(env, prTestFiles(chain.prs[0])));
  log(`Jinja #${JINJA_PR} in ${env.image}; its tests take ${testCpu.toFixed(2)} CPU-s alone`);
  const levels: Level[] = [];
  for (const concurrency of LEVELS) {
    const l = await level(concurrency, chain, env, testCpu);
    log(`${concurrency} at once: ${diagnosis(l)}`);
    levels.push(l);
  }
  log(`after: ${uptime()}`);
  const what = `Jinja #${JINJA_PR} rolled out for real (reads, the PR's edit, its tests twice; gold validation cold), model latency lognormal (median ${LATENCY.medianMs / 1000} s, p95 ${LATENCY.p95Ms / 1000} s, seed ${SEED}), ${cpus().length} cores shared with other users`;
  return levels.flatMap((l) => {
    const n = l.concurrency;
    const spread = `median of ${l.efficiencies.length}: ${l.efficiencies.map((e) => e.toFixed(3)).join(', ')}; one alone ${l.single.wall.toFixed(1)} s, ${n} at once ${l.batches.map((b) => b.wall.toFixed(1)).join(', ')} s; model time ${l.drawnVsJournaled.join('; ')}`;
    const vs = l.efficiencies.map((e, i) => e / l.ceilings[i]);
    return [
      {
        measure: `concurrency_efficiency_${n}`,
        value: round(median(l.efficiencies), 3),
        unit: 'ratio',
        goal: `${n === 32 ? `>= ${GOALS.efficiency32}` : 'context'} (the slowest rollout's own time / ${n} at once, ${what}; ${spread}; ${diagnosis(l)})`,
      },
      {
        measure: `concurrency_ceiling_${n}`,
        value: round(median(l.ceilings), 3),
        unit: 'ratio',
        goal: `context: the efficiency the rollouts' ends allow on ${cpus().length} cores (bounds() in bench/concurrency.ts; one end ${l.endWorkerCpu.toFixed(2)} CPU-s of workers plus the tests')`,
      },
      {
        measure: `efficiency_vs_ceiling_${n}`,
        value: round(median(vs), 3),
        unit: 'ratio',
        goal: `${n >= 64 ? `>= ${GOALS.vsCeiling}` : 'context'} (concurrency_efficiency_${n} / concurrency_ceiling_${n})`,
      },
      {
        measure: `worker_cpu_seconds_per_rollout_${n}`,
        value: round(median(l.split.map((s) => s.workers)), 2),
        unit: 's',
        goal: `context: the workers' own CPU (orchestration, rollout, judge and export activities; this process, the stand-in model's HTTP server and the bench's polling included) / ${n}, other users' load not included`,
      },
      {
        measure: `cpu_seconds_per_rollout_${n}`,
        value: round(median(l.machineCpuPerRollout), 2),
        unit: 's',
        goal: `context: the whole machine's CPU during ${n} at once / ${n}, other users included; per sample ${l.split.map(describe).join('; ')}; machine busy ${l.busy.map((b) => `${(b * 100).toFixed(0)} %`).join(', ')}`,
      },
      {
        measure: `sandbox_peak_memory_mb_${n}`,
        value: round(median(l.peakMb), 1),
        unit: 'MiB',
        goal: `context: median high-water mark of a sandbox's cgroup memory, ${n} at once (max ${round(Math.max(...l.peakMb), 1)} over ${l.peakMb.length} sandboxes)`,
      },
    ];
  });
}
