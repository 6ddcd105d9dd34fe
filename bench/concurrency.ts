import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { RUN_KEY_LABEL, SANDBOX_LABEL } from '../src/sandbox/docker-sandbox';
import { OWNER_LABEL, ownerLabel } from '../src/sandbox/orphans';
import { demoChain } from '../test/support/demo-chain';
import { startEngines, testConfig } from '../test/support/engines';
import { startModelProcess } from '../test/support/model-process';
import { orchestratedRuns, renamed, warmGoldCache, withWorkers } from './durability';
import type { Figure } from './figure';
import { chainPhases, PHASE_NAMES, type Phases } from './phases';

// CHAINSMITH_BENCH_LEVELS=64 CHAINSMITH_BENCH_SAMPLES=1 measures less, e.g. under a profiler.
const LEVELS = process.env.CHAINSMITH_BENCH_LEVELS?.split(',').map(Number) ?? [32, 64, 128];
const SAMPLES = Number(process.env.CHAINSMITH_BENCH_SAMPLES ?? 3);
const STEPS = 20;
const LATENCY_MS = 4000;

const log = (line: string) => console.error(`[concurrency] ${line}`);
const round = (x: number, digits: number) => Number(x.toFixed(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU time the whole machine has spent (all cores, all processes, other users' too), in seconds. */
function machineCpuSeconds(): number {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
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
      ticks += stat.slice(stat.lastIndexOf(')') + 2).split(' ').slice(11, 15).map(Number).reduce((a, b) => a + b, 0);
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
 * CPU seconds spent so far by the parts of the machine a burst is split into. Docker's daemons are
 * left to the rest: a shim's reaped children are the container's processes, already counted as the
 * sandboxes', so its counter would count them twice.
 */
type Parts = Record<'workers' | 'sandboxes' | 'temporal', number>;

/** All sandboxes' CPU so far (cgroup v1: every container's cgroup is under docker/, whose count outlives them), in seconds. */
const allContainersCpuSeconds = () => Number(readFileSync('/sys/fs/cgroup/cpuacct/docker/cpuacct.usage', 'utf8')) / 1e9;

/** The parts' counters now; the Temporal server's pids are found once (a scan of /proc every half second is CPU the bursts would count). */
const partsNow = (temporal: string[]): Parts => ({ workers: ownCpuSeconds(), sandboxes: allContainersCpuSeconds(), temporal: pidsCpuSeconds(temporal) });

interface Stretch {
  seconds: number;
  cpu: number;
  /** The CPU seconds of `cpu` each part spent; the rest is Docker's daemons, shims and runc, and other users. */
  parts: Parts;
}

/** The whole machine's CPU in the lockstep phases of a batch: its start and its end, where every rollout is busy at once. */
interface Bursts {
  /** The first stretch of the batch's first half where the machine was saturated: its length and the CPU seconds spent in it. */
  start: Stretch;
  /** The last such stretch of its second half. */
  end: Stretch;
}

/** Busy share of all cores from which a half-second counts as saturated; a stretch may have one calm half-second in it. */
const SATURATED = 0.9;

/** The efficiency asked of 64 rollouts at once. */
const GOAL_64 = 0.9;

/** Samples the machine's CPU (and its parts') every half second until stopped; then where it was saturated at the start and at the end. */
function burstSampler() {
  const temporal = pidsOf(TEMPORAL);
  const sample = () => ({ t: performance.now() / 1000, cpu: machineCpuSeconds(), parts: partsNow(temporal) });
  const samples = [sample()];
  const timer = setInterval(() => samples.push(sample()), 500);
  return {
    stop(): Bursts {
      clearInterval(timer);
      samples.push(sample());
      const steps = samples.slice(1).map((x, i) => ({
        at: samples[i].t - samples[0].t,
        seconds: x.t - samples[i].t,
        cpu: x.cpu - samples[i].cpu,
        parts: Object.fromEntries(Object.entries(x.parts).map(([k, v]) => [k, v - samples[i].parts[k as keyof Parts]])) as Parts,
      }));
      const hot = steps.map((x) => x.cpu >= SATURATED * x.seconds * cpus().length);
      const stretches: (typeof steps)[] = [];
      for (let i = 0; i < steps.length; i++) {
        if (!hot[i]) continue;
        let j = i;
        while (j + 1 < steps.length && (hot[j + 1] || (j + 2 < steps.length && hot[j + 2]))) j++;
        stretches.push(steps.slice(i, j + 1));
        i = j;
      }
      const half = (samples[samples.length - 1].t - samples[0].t) / 2;
      const sum = (xs: typeof steps = []): Stretch => ({
        seconds: xs.reduce((a, x) => a + x.seconds, 0),
        cpu: xs.reduce((a, x) => a + x.cpu, 0),
        parts: Object.fromEntries(Object.keys(samples[0].parts).map((k) => [k, xs.reduce((a, x) => a + x.parts[k as keyof Parts], 0)])) as Parts,
      });
      return { start: sum(stretches.find((x) => x[0].at < half)), end: sum([...stretches].reverse().find((x) => x[0].at >= half)) };
    },
  };
}

/**
 * The high-water mark of memory (cgroup v1 `memory.max_usage_in_bytes`, page cache included) and the
 * CPU time (`cpuacct.usage`) of every sandbox of this run, read every second while it runs: both only
 * rise, so a late read loses at most the last second of a sandbox's life. A round that took a
 * container from the (in-process) workers' pool has no run label: the pool's containers count by
 * their owner, this process, their CPU as the sandboxes'; peaks are only of round sandboxes (named
 * for their rounds, round-sandbox.ts), so that idle warm ones do not lower the figure.
 */
function sandboxUsage(docker: Docker, runKeyPart: string) {
  const owner = ownerLabel()[OWNER_LABEL];
  const peaks = new Map<string, number>();
  const cpu = new Map<string, number>();
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      const all = await docker.listContainers({ filters: { label: [SANDBOX_LABEL] } }).catch(() => []);
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
  model: number;
  sandboxes: number;
  docker: number;
  temporal: number;
  others: number;
  rest: number;
}

interface Level {
  concurrency: number;
  single: number;
  efficiencies: number[];
  walls: number[];
  machineCpuPerRollout: number[];
  /**
   * Per rollout: the workers (this process), the stand-in model's process, sandboxes, Docker's
   * daemons, the Temporal server, other users (their rate just before), what is left.
   */
  split: Split[];
  /** Machine CPU over the batch's wall time and all cores. */
  busy: number[];
  /** Per sample: the saturated start and end of the batch (burstSampler). */
  bursts: Bursts[];
  peakMb: number[];
  /** One rollout alone's phases, then per sample the median chain's and the last chain to close's. */
  singlePhases: Phases;
  phases: { median: Phases; last: Phases }[];
}

/**
 * One rollout alone, then `concurrency` started at once (a batch with that concurrency), SAMPLES
 * times: each rollout is one stage of STEPS model calls at LATENCY_MS each, the model served by its
 * own process. Efficiency is one rollout's wall time over the batch's: 1 when N rollouts take as
 * long as one.
 */
async function level(concurrency: number): Promise<Level> {
  const chain = await demoChain(`bench-conc${concurrency}`);
  const one = renamed(chain, 'solo', 1);
  const model = await startModelProcess(chain, { notesPerStage: STEPS - 2, latencyMs: LATENCY_MS });
  const config = testConfig({ OPENAI_BASE_URL: model.url, CHAINSMITH_MODEL: 'scripted' });
  const engines = await startEngines(config, { maxSandboxes: concurrency });
  const docker = new Docker();
  try {
    return await withWorkers(engines, async () => {
      await warmGoldCache(engines, config, one);
      const alone = await orchestratedRuns(engines, config, [one]);
      const single = alone.seconds;
      const [singlePhases] = await chainPhases(engines.client, config, alone.workflowIds, alone.t0);
      const out: Level = { concurrency, single, efficiencies: [], walls: [], machineCpuPerRollout: [], split: [], busy: [], bursts: [], peakMb: [], singlePhases, phases: [] };
      for (let s = 0; s < SAMPLES; s++) {
        const many = [...Array(concurrency).keys()].map((i) => renamed(chain, `s${s}c${i}`, 1));
        const others = await othersCores(10);
        const usage = sandboxUsage(docker, chain.repo.name.replace(/[^\w.-]+/g, '-'));
        const [machine0, own0, model0, docker0, temporal0] = [machineCpuSeconds(), ownCpuSeconds(), await model.cpuSeconds(), processCpuSeconds(DOCKER), processCpuSeconds(TEMPORAL)];
        const sampler = burstSampler();
        const runs = await orchestratedRuns(engines, config, many, concurrency);
        const bursts = sampler.stop();
        const wall = runs.seconds;
        const per = (x: number) => x / concurrency;
        const machine = per(machineCpuSeconds() - machine0);
        const sandboxes = await usage.stop();
        const split = {
          workers: per(ownCpuSeconds() - own0),
          model: per((await model.cpuSeconds()) - model0),
          sandboxes: per(sandboxes.cpuSeconds),
          docker: per(processCpuSeconds(DOCKER) - docker0),
          temporal: per(processCpuSeconds(TEMPORAL) - temporal0),
          // Other users at the rate they ran just before; the rest is what no counter here sees
          // (containerd shims and runc, which exit with their containers) and how others' load moved.
          others: per(others * wall),
          rest: 0,
        };
        split.rest = machine - split.workers - split.model - split.sandboxes - split.docker - split.temporal - split.others;
        const peaks = sandboxes.peaks.map((b) => b / 2 ** 20);
        const busy = (machine * concurrency) / (wall * cpus().length);
        out.walls.push(wall);
        out.efficiencies.push(single / wall);
        out.machineCpuPerRollout.push(machine);
        out.split.push(split);
        out.busy.push(busy);
        out.bursts.push(bursts);
        out.peakMb.push(...peaks);
        const phases = await chainPhases(engines.client, config, runs.workflowIds, runs.t0);
        const closes = phases.map(total);
        out.phases.push({ median: medianPhases(phases), last: phases[closes.indexOf(Math.max(...closes))] });
        log(
          `${concurrency} at once, sample ${s + 1}: ${wall.toFixed(1)} s (one alone ${single.toFixed(1)} s), efficiency ${(single / wall).toFixed(3)}; machine busy ${(busy * 100).toFixed(0)} %; ${describeBursts(bursts, concurrency)}; ` +
            `CPU a rollout: machine ${machine.toFixed(2)} s = ${describe(split)}; sandbox peak memory median ${median(peaks)?.toFixed(1)} MiB of ${peaks.length}; ` +
            `phases (s), median chain: ${describePhases(out.phases[s].median)}; last to close: ${describePhases(out.phases[s].last)}; alone: ${describePhases(singlePhases)}; ${uptime()}`,
        );
      }
      return out;
    });
  } finally {
    await model.stop();
  }
}

/**
 * Where a level breaks and why: with the machine busy, CPU (and whose: ours or other users'); then
 * which phases of the last chain to close grew against one rollout alone (phases.ts). Also how many rollouts
 * the two cores could carry at once were ours the only load: CPU a rollout (ours: what the counters
 * attribute to us) against one rollout's wall time.
 */
function diagnosis(l: Level): string {
  const busy = median(l.busy);
  const split = Object.fromEntries(Object.keys(l.split[0]).map((k) => [k, median(l.split.map((s) => s[k as keyof Split]))])) as unknown as Split;
  // The rest (containerd shims and runc, but also other users' load moving) is left out and shown apart.
  const ours = split.workers + split.model + split.sandboxes + split.docker + split.temporal;
  const carried = Math.floor((cpus().length * l.single) / ours);
  const [top, topSeconds] = Object.entries(split).sort((a, b) => b[1] - a[1])[0];
  const bound =
    busy >= 0.85
      ? `CPU-bound: the machine was ${(busy * 100).toFixed(0)} % busy, most of it ${top} (${topSeconds.toFixed(2)} s a rollout)`
      : `not CPU-bound on average (machine ${(busy * 100).toFixed(0)} % busy over the batch; its start and end, where every rollout opens or tests its sandbox at once, can still be)`;
  const bursts = l.bursts[l.efficiencies.indexOf(median(l.efficiencies))];
  return `${bound}; ${describeBursts(bursts, l.concurrency)}; ${endBound(l.single, bursts.end, l.concurrency)}; ${growth(l)}; ours ${ours.toFixed(2)} s CPU a rollout (unattributed ${split.rest.toFixed(2)} s more), so ${cpus().length} cores carry about ${carried} rollouts at once with no other users`;
}

/**
 * The ceiling the batch's end sets: no rollout's tests, judging and export can begin before one
 * rollout's agent steps are over, so all N ends share the cores after that, and the batch lasts at
 * least one rollout plus N ends' CPU over the cores (less the one end that rollout's wall holds).
 */
function endBound(single: number, end: Stretch, n: number): string {
  const perRollout = end.cpu / n;
  const queued = ((n - 1) * perRollout) / cpus().length;
  return `the end's ${perRollout.toFixed(2)} CPU-s a rollout alone keeps ${n} at once ${queued.toFixed(1)} s past one rollout on ${cpus().length} cores, so efficiency ≤ ${(single / (single + queued)).toFixed(3)} (${GOAL_64} needs ≤ ${(((single / GOAL_64 - single) * cpus().length) / (n - 1)).toFixed(2)} CPU-s a rollout there)`;
}

/** A chain's wall time: its phases but the queueing, which they include. */
const total = (p: Phases) => p.start + p.toRollout + p.sandbox + p.steps + p.after;

const medianPhases = (ps: Phases[]) => Object.fromEntries(Object.keys(ps[0]).map((k) => [k, median(ps.map((p) => p[k as keyof Phases]))])) as unknown as Phases;

const describePhases = (p: Phases) => (Object.keys(PHASE_NAMES) as (keyof Phases)[]).map((k) => `${PHASE_NAMES[k]} ${p[k].toFixed(1)}`).join(', ');

/** Which phases the last chain to close spent longer in than one rollout alone, largest first (median over samples). */
function growth(l: Level): string {
  const last = medianPhases(l.phases.map((p) => p.last));
  const grown = (Object.keys(PHASE_NAMES) as (keyof Phases)[])
    .filter((k) => k !== 'queued')
    .map((k) => [k, last[k] - l.singlePhases[k]] as const)
    .sort((a, b) => b[1] - a[1]);
  return `the last chain to close took ${(total(last) - total(l.singlePhases)).toFixed(1)} s longer than one alone: ${grown.map(([k, d]) => `${PHASE_NAMES[k]} ${d >= 0 ? '+' : ''}${d.toFixed(1)}`).join(', ')} (of which queued for a worker slot ${(last.queued - l.singlePhases.queued).toFixed(1)})`;
}

/** The saturated start and end of a batch, the CPU a rollout spent in them, and whose it was. */
const describeBursts = (b: Bursts, n: number) => {
  const one = (x: Stretch, where: string) =>
    `${x.seconds.toFixed(1)} s at the batch's ${where} (${(x.cpu / n).toFixed(2)} CPU-s a rollout: ${Object.entries(x.parts)
      .map(([k, v]) => `${k} ${(v / n).toFixed(2)}`)
      .join(', ')}, docker and the rest ${((x.cpu - Object.values(x.parts).reduce((a, v) => a + v, 0)) / n).toFixed(2)})`;
  return `all cores at least ${SATURATED * 100} % busy for ${one(b.start, 'start')} and ${one(b.end, 'end')}`;
};

const describe = (split: Split) => Object.entries(split).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' + ');

export async function run(): Promise<Figure[]> {
  log(`before: ${uptime()}`);
  const levels: Level[] = [];
  for (const concurrency of LEVELS) {
    const l = await level(concurrency);
    log(`${concurrency} at once: ${diagnosis(l)}`);
    levels.push(l);
  }
  log(`after: ${uptime()}`);
  const what = `${STEPS} steps at ${LATENCY_MS / 1000} s a model call (model in its own process), 2 cores shared with other users`;
  return levels.flatMap((l) => {
    const spread = `median of ${l.efficiencies.length}: ${l.efficiencies.map((e) => e.toFixed(3)).join(', ')}`;
    const n = l.concurrency;
    return [
      { measure: `concurrency_efficiency_${n}`, value: round(median(l.efficiencies), 3), unit: 'ratio', goal: `${n === 64 ? `>= ${GOAL_64}` : 'context'} (one rollout's wall / ${n} at once, ${what}; ${spread}; ${diagnosis(l)})` },
      {
        measure: `worker_cpu_seconds_per_rollout_${n}`,
        value: round(median(l.split.map((s) => s.workers)), 2),
        unit: 's',
        goal: `context: the workers' own CPU (orchestration, rollout, judge and export activities; this process, the bench's polling included) / ${n}, other users' load not included`,
      },
      {
        measure: `cpu_seconds_per_rollout_${n}`,
        value: round(median(l.machineCpuPerRollout), 2),
        unit: 's',
        goal: `context: the whole machine's CPU during ${n} at once / ${n}, other users included; per sample ${l.split.map(describe).join('; ')}; machine busy ${l.busy.map((b) => `${(b * 100).toFixed(0)} %`).join(', ')}`,
      },
      { measure: `sandbox_peak_memory_mb_${n}`, value: round(median(l.peakMb), 1), unit: 'MiB', goal: `context: median high-water mark of a sandbox's cgroup memory, ${n} at once (max ${round(Math.max(...l.peakMb), 1)} over ${l.peakMb.length} sandboxes)` },
    ];
  });
}
