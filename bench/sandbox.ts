import Docker from 'dockerode';
import { ModelClient } from '../src/model/client';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ModelPolicy } from '../src/agent/model-policy';
import { TOOL_SPECS } from '../src/agent/tools';
import { ArtifactStore } from '../src/artifacts/store';
import { templateQueries } from '../src/queries/template';
import { runRound, type RoundDeps } from '../src/rollout/round';
import {
  DockerContainer,
  HOST_LABEL,
  OFFLINE_START,
  removeLabelledContainers,
  CONTAINER_LABEL,
} from '../src/container/docker-container';
import { ContainerPool } from '../src/stage/pool';
import { prTestCommand, runTests } from '../src/environments/pr-tests';
import { claimRoundContainer, roundKey, type ContainerSource } from '../src/stage/round-container';
import { StageSandbox } from '../src/stage/stage-sandbox';
import { stageInputProblem } from '../src/stage/inputs';
import { baseImageTag } from '../src/environments/images';
import { setUpStage } from '../src/stage/setup';
import type { Chain, Judgement, PullRequest } from '../src/schemas';
import { loadConfig } from '../src/config';
import { environmentsFrom, sandboxSpecFrom } from '../src/environments/from-config';
import { AGENT_NOTES, carryChains } from '../test/support/carry-chains';
import { testEnvironments } from '../test/support/environments';
import { bundlePath, cloneBundle } from '../test/support/real-repos';
import { FakeOpenAI, type ChatRequest } from '../test/support/fake-openai';
import { testConfig } from '../test/support/engines';
import { JINJA_PR, jinjaAgent, jinjaStage } from './support/real-workload';
import { writeLargeHistory } from '../test/support/large-history';
import { tokenIds } from '../src/dataset/tokens';
import type { Figure } from './figure';

const COMMITS = 52_000;
const FILES = 2_000;
const READY_SAMPLES = 11;
const CLONE_SAMPLES = 3;
const EXECS = 100;
const BENCH_LABEL = { 'chainsmith.bench': 'sandbox' };
/** The pool's size by default (config.ts, sandbox.poolSize). */
const POOL_SIZE = 2;

const say = (line: string) => console.error(`[sandbox] ${line}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The sandbox figures, all measured in this one run:
 * - time to a ready sandbox at a stage's commit of a repository with 52,000 commits: the stage's
 *   environment looked up, a warm container taken from the worker's pool (as a chain's first stage
 *   and a refinement round get one where their kind is in demand), the commit checked out and tagged
 *   (what a rollout round does), next to the same in a container started on demand, and to a fresh
 *   clone of the same repository and a checkout of the commit in a container from the base image
 *   (started off the clock, as the warm one was);
 * - time to a ready stage-2 sandbox with a real carry applied, on cJSON, cobra and Jinja in their
 *   environments, opened as a rollout opens it right after stage 1 (from the container the pool
 *   prepared while stage 1 ran its test suite, if ready), next to its refinement round, the same with
 *   no pool, more chains at once than the pool prepares for, and a `git clone --shared` and checkout
 *   in a container from the same image (started off the clock);
 * - one `docker exec` round trip;
 * - how much of each model request repeats the previous one, over a real rollout of Jinja #1465 with
 *   one refinement round through the real round code, without a context budget and with one small
 *   enough that the context limit cuts at least twice, and what a cut costs.
 * CHAINSMITH_BENCH_ONLY=ready,carry,prefix runs some of them.
 */
export async function run(): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-sandbox-'));
  const docker = new Docker();
  try {
    const only = process.env.CHAINSMITH_BENCH_ONLY?.split(',');
    const want = (section: string) => !only || only.includes(section);
    return [
      ...(want('ready') ? await readiness(docker, root) : []),
      ...(want('carry') ? await carryReadiness(docker) : []),
      ...(want('prefix') ? await prefixReuse(docker, root) : []),
    ];
  } finally {
    const left = await docker.listContainers({
      all: true,
      filters: { label: [CONTAINER_LABEL, 'chainsmith.bench=sandbox'] },
    });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    await rm(root, { recursive: true, force: true });
  }
}

async function readiness(docker: Docker, root: string): Promise<Figure[]> {
  let t0 = performance.now();
  const history = await writeLargeHistory(join(root, 'large'), { commits: COMMITS, files: FILES });
  say(
    `generated ${history.commits.length} commits (${FILES} modules) in ${round((performance.now() - t0) / 1000, 1)} s`,
  );
  // Stage bases spread over the last half of the history, as a chain of recent PRs would be.
  const stages = [...Array(READY_SAMPLES).keys()].map(
    (i) => history.commits[Math.floor(history.commits.length * (0.5 + (0.5 * i) / READY_SAMPLES))],
  );
  const chain = largeChain(history.path, stages);
  const environments = testEnvironments(docker);
  t0 = performance.now();
  await environments.forStage(chain, 0);
  say(`environment image built once in ${round((performance.now() - t0) / 1000, 1)} s`);

  const spec = {
    image: (await environments.forStage(chain, 0)).image,
    mirrorPath: history.path,
    memoryMb: 2048,
    pidsLimit: 512,
  };
  const pool = new ContainerPool(docker, {
    size: POOL_SIZE,
    host: `bench-ready-${process.pid}`,
    onError: (err) => say(`pool: ${err.message}`),
  });
  const ready: number[] = [];
  const sources: ContainerSource[] = [];
  const unpooled: number[] = [];
  const clones: number[] = [];
  let execs: number[] = [];
  const check = async (sandbox: DockerContainer, stage: number) => {
    const head = (await sandbox.exec('git rev-parse HEAD', { timeoutSeconds: 10, maxOutputChars: 100 })).output.trim();
    if (head !== stages[stage]) throw new Error(`sandbox is at ${head}, not at ${stages[stage]}`);
  };
  try {
    for (let stage = 0; stage < stages.length; stage++) {
      // The pool as a worker's is between stages that last minutes: refilled (from the second stage on,
      // when the kind is in demand; the first two start their own containers).
      await pool.filled(spec);
      let started = performance.now();
      let env = await environments.forStage(chain, stage);
      const claimed = await claimRoundContainer(
        docker,
        { ...spec, image: env.image, labels: BENCH_LABEL },
        `chainsmith-bench-${process.pid}-${stage}`,
        pool,
      );
      try {
        await setUpStage(claimed.sandbox, chain, stage, { progress: false });
        ready.push((performance.now() - started) / 1000);
        sources.push(claimed.source);
        pool.refill(spec);
        await check(claimed.sandbox, stage);
      } finally {
        await claimed.sandbox.destroy();
      }
      // The same stage in a container started on demand (sandbox.poolSize 0), once the pool is full again.
      await pool.filled(spec);
      started = performance.now();
      env = await environments.forStage(chain, stage);
      const sandbox = await DockerContainer.create(docker, { ...spec, image: env.image, labels: BENCH_LABEL });
      try {
        await setUpStage(sandbox, chain, stage, { progress: false });
        unpooled.push((performance.now() - started) / 1000);
        await check(sandbox, stage);
        if (stage === 0) execs = await roundTrips(sandbox);
      } finally {
        await sandbox.destroy();
      }
      // Clones between the ready samples, so both see the same load on the host.
      if (stage % Math.ceil(stages.length / CLONE_SAMPLES) === 0)
        clones.push(await freshClone(docker, history.path, stages[stage]));
    }
  } finally {
    await pool.drain();
  }

  const readyMedian = median(ready);
  const cloneMedian = median(clones);
  const warm = sources.filter((s) => s === 'warm').length;
  const list = (xs: number[]) => xs.map((s) => round(s, 3)).join(', ');
  say(
    `ready: median ${round(readyMedian, 3)} s of ${list(ready)} (${warm} from a warm container); on demand: median ${round(median(unpooled), 3)} s of ${list(unpooled)}`,
  );
  say(`fresh clone + checkout: median ${round(cloneMedian, 2)} s of ${clones.map((s) => round(s, 2)).join(', ')}`);
  const what = `a stage's sandbox at its commit, ${history.commits.length} commits, median of ${ready.length}`;
  return [
    {
      measure: 'ready_median_seconds',
      value: round(readyMedian, 3),
      unit: 's',
      goal: `<= 1 (${what}: the environment looked up, a warm container from the worker's pool of ${POOL_SIZE} (${warm} of ${ready.length} found one), the commit checked out and tagged)`,
    },
    {
      measure: 'ready_speedup_vs_clone',
      value: round(cloneMedian / readyMedian, 1),
      unit: 'ratio',
      goal: `>= 20 (baseline: fresh clone + checkout of the same commit, median of ${clones.length}, over ready as above; on both sides the container was started before the clock)`,
    },
    {
      measure: 'ready_median_seconds_no_pool',
      value: round(median(unpooled), 3),
      unit: 's',
      goal: `context: ${what} in a container started on demand (sandbox.poolSize 0), create + start included`,
    },
    {
      measure: 'exec_roundtrip_ms',
      value: round(median(execs), 1),
      unit: 'ms',
      goal: `<= 50 (median of ${execs.length}; a command through the sandbox's attached shell, from request to exit code)`,
    },
  ];
}

/** A chain whose stages start at the given commits (the bench never applies their patches). */
function largeChain(path: string, bases: string[]): Chain {
  const prs: PullRequest[] = bases.map((sha, i) => ({
    number: i + 1,
    title: `Stage ${i + 1}`,
    body: '',
    messages: [],
    author: 'ada',
    mergedAt: '2024-01-01T00:00:00Z',
    landing: 'merge',
    baseSha: sha,
    mergeSha: sha,
    files: [],
    patch: '',
  }));
  return { id: 'bench/large', repo: { name: 'bench/large', path }, prs, edges: [] };
}

async function roundTrips(sandbox: DockerContainer): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    const t0 = performance.now();
    await sandbox.exec('true', { timeoutSeconds: 10, maxOutputChars: 100 });
    times.push(performance.now() - t0);
  }
  return times;
}

/** What a sandbox without a prepared environment does: a clone of the repository and a checkout, in a container already started. */
async function freshClone(docker: Docker, path: string, sha: string): Promise<number> {
  const container = await docker.createContainer({
    Image: baseImageTag(),
    // Started as a sandbox is (docker-sandbox.ts): the ratio is not the engine's network setup, nor a shell waiting for /etc/hosts.
    ...OFFLINE_START,
    Labels: { [CONTAINER_LABEL]: '1', ...BENCH_LABEL },
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Binds: [`${path}:/src:ro`],
    },
  });
  try {
    // Started before the clock, as the pooled container the ready time is compared with was.
    await container.start();
    const sandbox = DockerContainer.attach(docker, container);
    const started = performance.now();
    // --no-local: the objects travel as a pack, as from a remote, not as a copy of the files.
    const r = await sandbox.exec(
      `git clone -q --no-local --no-checkout /src /work/clone && git -C /work/clone checkout -q ${sha}`,
      { timeoutSeconds: 600, maxOutputChars: 4000, cwd: '/work' },
    );
    if (r.exitCode !== 0) throw new Error(`fresh clone failed: ${r.output}`);
    return (performance.now() - started) / 1000;
  } finally {
    await container.remove({ force: true });
  }
}

const REAL = ['DaveGamble+cJSON', 'spf13+cobra', 'pallets+jinja'];
const CARRY_CHAINS = 7;
const SHARED_SAMPLES = 3;
/** Chains opened at once per repository for the busy figure: more than the POOL_SIZE containers the pool prepares. */
const BUSY = POOL_SIZE + 2;

/**
 * Ready time at stage 2 with a real carry, on real repositories in their environments: per repository,
 * CARRY_CHAINS two-stage chains of consecutive recent PRs (carry-chains.ts: the agent's carried work
 * takes the gold code out again and adds a file). Each chain runs as a rollout on one worker would:
 * stage 1 opened through the worker's pool, then at work (the repository's test suite, once) while the
 * pool does what it does beside a stage (refill, and prepare stage 2's first round: its container
 * started, the base checked out); nothing waits for the pool. Stage 1's sandbox is removed, and stage 2
 * is opened at once (StageSandbox.open: the environment looked up, the container taken, the carry
 * merged in) and timed. The environments are built and the stages' inputs checked first, as gold
 * validation does before any rollout. Beside it, for every chain, stage 2's refinement round right
 * after (nothing prepared for it); for some, the same stage opened with no pool (a container started
 * on demand) and the baseline, a `git clone --shared` of the same clone and a checkout of the same
 * commit in a container from the same environment image, started before the clock. Then, per
 * repository, BUSY chains at once, more than the pool's prepared slots: their stage 1s run side by
 * side, then their stage 2s open side by side, and those the pool could not prepare for miss it.
 */
async function carryReadiness(docker: Docker): Promise<Figure[]> {
  const config = loadConfig();
  const environments = environmentsFrom(config, docker, baseImageTag(), (line) => say(line));
  const host = `bench-sandbox-${process.pid}`;
  const pool = new ContainerPool(docker, { size: POOL_SIZE, host, onError: (err) => say(`pool: ${err.message}`) });
  const noPool = new ContainerPool(docker, { size: 0, host });
  const limits = sandboxSpecFrom(config);
  const ready: number[] = [];
  const sources: ContainerSource[] = [];
  const refinement: number[] = [];
  const refinementSources: ContainerSource[] = [];
  const cold: number[] = [];
  const shared: number[] = [];
  const conflicts: number[] = [];
  const stageOne: number[] = [];
  const busy: number[] = [];
  const busySources: ContainerSource[] = [];
  const open = (
    chain: Chain,
    stage: number,
    round: number,
    carry: string | undefined,
    from: ContainerPool,
    runKey: string,
  ) =>
    StageSandbox.open({ docker, environments, sandbox: limits, pool: from }, chain, stage, {
      role: { kind: 'rollout', runKey, key: roundKey(runKey, stage, round), host },
      carryPatch: carry,
    });
  const timed = async (opening: Promise<StageSandbox>, into: number[], chain: Chain) => {
    const started = performance.now();
    const stage = await opening;
    try {
      into.push((performance.now() - started) / 1000);
      const notes = await stage.exec(`test -f ${AGENT_NOTES}`, { timeoutSeconds: 10, maxOutputChars: 100 });
      if (notes.exitCode !== 0) throw new Error(`the carry of ${chain.id} did not reach stage 2`);
      return stage;
    } finally {
      await stage.destroy();
    }
  };
  // Stage 1 as a rollout has it: opened, then at work, then gone. Its work: the repository's whole test
  // suite once, however long that takes (most of these PRs change no test file, so their own tests are nothing to run).
  const runStageOne = async (chain: Chain, runKey: string) => {
    const first = await open(chain, 0, 0, undefined, pool, runKey);
    const started = performance.now();
    try {
      const suite = await runTests(first.sandbox, first.env, prTestCommand(first.env, []), 600);
      if (!suite.ran || suite.output.trim() === '')
        say(`${chain.id}: stage 1's test suite did nothing (${suite.command})`);
    } catch (err) {
      say(`${chain.id}: stage 1's tests did not run: ${(err as Error).message.split('\n')[0]}`);
    } finally {
      stageOne.push((performance.now() - started) / 1000);
      await first.destroy();
    }
  };
  try {
    for (const bundle of REAL.filter((name) => bundlePath(name))) {
      const path = await cloneBundle(bundle);
      const chains = await carryChains(path, bundle.replace('+', '/'), CARRY_CHAINS);
      const t0 = performance.now();
      for (const { chain } of chains) {
        for (const stage of [0, 1]) {
          await environments.forStage(chain, stage);
          const problem = await stageInputProblem(path, chain.prs[stage]);
          if (problem) throw new Error(`${chain.id}: ${problem}`);
        }
      }
      say(
        `${bundle}: ${chains.length} two-stage chains; environments ready (built or found) and inputs checked in ${round((performance.now() - t0) / 1000, 1)} s`,
      );
      for (const [i, { chain, carry }] of chains.entries()) {
        const runKey = `bench-${process.pid}-${i}-${bundle.replace('+', '-')}/run`;
        const spec = { ...limits, image: (await environments.forStage(chain, 1)).image, mirrorPath: path };
        await runStageOne(chain, runKey);
        const stage = await timed(open(chain, 1, 0, carry, pool, runKey), ready, chain);
        sources.push(stage.source);
        conflicts.push(stage.carry.conflicts.length);
        // Stage 2's second round, had the judge sent it back: nothing prepared; a warm container where
        // the pool keeps that kind warm (its demand, pool.ts) and has one ready by now, else one started on demand.
        refinementSources.push((await timed(open(chain, 1, 1, carry, pool, runKey), refinement, chain)).source);
        if (i % Math.ceil(chains.length / SHARED_SAMPLES) !== 0) continue;
        // These two use no pool: the pool's background starts are let finish first, so they do not slow them.
        await pool.filled(spec);
        await timed(open(chain, 1, 0, carry, noPool, `${runKey}-cold`), cold, chain);
        shared.push(await sharedClone(docker, spec.image, path, chain.prs[1].baseSha));
      }
      // More chains at once than the pool prepares for: the rest find a warm container or start their own.
      const batch = chains.slice(0, BUSY);
      const keys = batch.map((_, j) => `bench-${process.pid}-busy${j}-${bundle.replace('+', '-')}/run`);
      await Promise.all(batch.map(({ chain }, j) => runStageOne(chain, keys[j])));
      const opened = await Promise.all(
        batch.map(({ chain, carry }, j) => timed(open(chain, 1, 0, carry, pool, keys[j]), busy, chain)),
      );
      busySources.push(...opened.map((o) => o.source));
    }
  } finally {
    await pool.drain();
    await removeLabelledContainers(docker, { [HOST_LABEL]: host });
  }
  const readyMedian = median(ready);
  const sharedMedian = median(shared);
  const count = (source: ContainerSource) => sources.filter((s) => s === source).length;
  const hits = `${count('prepared')} of ${ready.length} took the container prepared for them, ${count('warm')} a warm one, ${count('new')} started their own`;
  const list = (xs: number[]) => xs.map((s) => round(s, 3)).join(', ');
  say(
    `stage 2 with a carry: median ${round(readyMedian, 3)} s of ${list(ready)} (${hits}; ${conflicts.filter((c) => c > 0).length} with conflicts)`,
  );
  const warmRefinements = `${refinementSources.filter((x) => x === 'warm').length} of ${refinement.length} from a warm container, the others started their own`;
  say(`its refinement round: median ${round(median(refinement), 3)} s of ${list(refinement)} (${warmRefinements})`);
  const busyCount = (source: ContainerSource) => busySources.filter((s) => s === source).length;
  const busyHits = `${busyCount('prepared')} of ${busy.length} took a prepared container, ${busyCount('warm')} a warm one, ${busyCount('new')} started their own`;
  say(
    `stage 1 ran the test suite for a median ${round(median(stageOne), 1)} s (${list(stageOne)}) before stage 2 opened`,
  );
  say(`${BUSY} chains at once per repository: median ${round(median(busy), 3)} s of ${list(busy)} (${busyHits})`);
  say(
    `the same with no pool: median ${round(median(cold), 3)} s of ${list(cold)} (the container's create + start included); --shared clone + checkout: median ${round(sharedMedian, 3)} s of ${list(shared)}`,
  );
  const what = `${ready.length} stage-2 sandboxes of ${REAL.join(', ')} in their environments, each with a carry that undoes the PR's code and adds a file`;
  return [
    {
      measure: 'ready_median_seconds_carry',
      value: round(readyMedian, 3),
      unit: 's',
      goal: `<= 0.3 (median of ${what}, opened as a rollout does right after stage 1 on the same worker with a pool of ${POOL_SIZE}, stage 1 having run the repository's test suite once (median ${round(median(stageOne), 1)} s) and nothing waiting for the pool: ${hits}; timed: the environment looked up, the container taken (its preparation awaited if unfinished), the carry merged in and tagged; done while stage 1 ran: the container's start and the base's checkout where the preparation was ready)`,
    },
    {
      measure: 'ready_speedup_vs_shared_clone',
      value: round(sharedMedian / readyMedian, 2),
      unit: 'ratio',
      goal: `>= 5 (baseline: git clone --shared + checkout of the stage's base in a container from the same image, median of ${shared.length}, over ready_median_seconds_carry; on both sides the container was started before the clock; the baseline merges no carry, which favours it)`,
    },
    {
      measure: 'ready_median_seconds_carry_busy',
      value: round(median(busy), 3),
      unit: 's',
      goal: `context: ${BUSY} chains per repository at once, more than the pool's ${POOL_SIZE} prepared slots, stage 1s side by side then stage 2s opened side by side: ${busyHits}; median of ${busy.length}, each from its open's call to its carry tagged`,
    },
    {
      measure: 'ready_median_seconds_carry_refinement',
      value: round(median(refinement), 3),
      unit: 's',
      goal: `context: the same stage's refinement round (nothing prepared for it): ${warmRefinements} (a kind of sandbox is kept warm once a second round asks for it), the base checked out, the carry merged in, median of ${refinement.length}`,
    },
    {
      measure: 'ready_median_seconds_carry_no_pool',
      value: round(median(cold), 3),
      unit: 's',
      goal: `context: the same stage opened with sandbox.poolSize 0 (a container started on demand, with the carry), median of ${cold.length}`,
    },
  ];
}

/** The baseline: in a container from the same image, started off the clock, the clone shared (objects borrowed, not copied) and the commit checked out. */
async function sharedClone(docker: Docker, image: string, path: string, sha: string): Promise<number> {
  const container = await docker.createContainer({
    Image: image,
    // Started as a sandbox is (docker-sandbox.ts): the ratio is not the engine's network setup, nor a shell waiting for /etc/hosts.
    ...OFFLINE_START,
    Labels: { [CONTAINER_LABEL]: '1', ...BENCH_LABEL },
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Binds: [`${path}:/src:ro`],
      Tmpfs: { '/clone': 'rw,exec,mode=1777' },
    },
  });
  try {
    // Started before the clock: the stage it is compared with got its container started while stage 1 ran.
    await container.start();
    const sandbox = DockerContainer.attach(docker, container);
    const started = performance.now();
    const r = await sandbox.exec(
      `git -c safe.directory='*' clone -q --shared --no-checkout /src /clone/repo && git -c safe.directory='*' -C /clone/repo checkout -q ${sha}`,
      { timeoutSeconds: 600, maxOutputChars: 4000, cwd: '/clone' },
    );
    if (r.exitCode !== 0) throw new Error(`shared clone failed: ${r.output}`);
    return (performance.now() - started) / 1000;
  } finally {
    await container.remove({ force: true });
  }
}

interface Rollout {
  steps: number;
  requests: ChatRequest[];
}

/**
 * The real workload of the concurrency bench (Jinja #1465: reads, the PR's edit, its tests; then a
 * refinement round that reads and tests again, bench/support/real-workload.ts) through the real round
 * code, in the stage's environment, with or without a context budget.
 */
async function realRollout(docker: Docker, root: string, name: string, contextTokens?: number): Promise<Rollout> {
  const chain = await jinjaStage();
  const config = testConfig();
  const environments = environmentsFrom(config, docker, baseImageTag());
  const { script } = jinjaAgent(chain, await environments.forStage(chain, 0));
  const store = new ArtifactStore(join(root, `${name}-artifacts`));
  const fake = new FakeOpenAI(script);
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const deps: RoundDeps = {
      docker,
      store,
      sandbox: { memoryMb: 2048, pidsLimit: 512 },
      environments,
      limits: { maxSteps: 60, commandTimeoutSeconds: 600, maxOutputChars: config.agent.maxOutputChars, contextTokens },
      policyFor: () => new ModelPolicy(client, 'scripted'),
      host: hostname(),
      heartbeat: () => undefined,
    };
    const base = {
      runKey: `bench-prefix-${name}-${Date.now()}/1`,
      chainRef: await store.putJson(chain),
      queriesRef: await store.putJson(templateQueries(chain)),
      stage: 0,
    };
    const first = await runRound({ ...base, round: 0 }, deps);
    const verdict: Judgement = {
      score: 0.4,
      passed: false,
      feedback: 'The change is incomplete: cover the remaining case and keep the notes short.',
    };
    const second = await runRound(
      {
        ...base,
        round: 1,
        conversationRef: first.trajectoryRef,
        progressPatchRef: first.stagePatchRef,
        feedbackRef: await store.putJson(verdict),
      },
      deps,
    );
    say(
      `${name}: ${first.steps + second.steps} steps in two rounds (${first.exitReason}, ${second.exitReason}), ${fake.requests.length} requests`,
    );
    return { steps: first.steps + second.steps, requests: fake.requests.map((r) => r.body) };
  } finally {
    await fake.stop();
  }
}

/**
 * How much of each model request repeats the previous one, over the same real rollout twice: without
 * a context budget (append-only), then with `budget.contextTokens` at half the first run's largest
 * prompt, so the context limit must cut; fewer than two cuts fails the bench (the figure would not
 * measure cuts). A cut shortens earlier outputs, so the request after it re-sends everything from the
 * first shortened message on.
 */
async function prefixReuse(docker: Docker, root: string): Promise<Figure[]> {
  const plain = await realRollout(docker, root, 'plain');
  const largest = Math.max(...plain.requests.map(promptTokens));
  const contextTokens = Math.max(1000, Math.round(largest / 2));
  const cut = await realRollout(docker, root, 'cut', contextTokens);
  const before = sharedPrefix(plain.requests);
  const after = sharedPrefix(cut.requests);
  const notes = (r: ChatRequest) =>
    r.messages.filter((m) => m.role === 'user' && m.content?.startsWith('Context note:')).length;
  const atCut = cut.requests.slice(1).map((r, i) => notes(r) > notes(cut.requests[i]));
  const cutResent = after.resent.filter((_, i) => atCut[i]);
  if (cutResent.length < 2)
    throw new Error(
      `the context budget ${contextTokens} cut the real rollout ${cutResent.length} time(s): prefix_reuse_ratio_with_cuts needs at least 2`,
    );
  const usual = median(after.resent.filter((_, i) => !atCut[i]));
  const perCut = cutResent.reduce((a, b) => a + b, 0) / cutResent.length - usual;
  say(
    `largest prompt without a budget ${largest} tokens (the fake's count); budget ${contextTokens}: ${cutResent.length} cuts, re-sent at each ${cutResent.join(', ')} tokens against a usual ${usual}`,
  );
  const ratio = (x: { reused: number; total: number }) => round(x.reused / x.total, 4);
  const what = `Jinja #${JINJA_PR} rolled out for real, ${plain.steps} steps in two rounds`;
  return [
    {
      measure: 'prefix_reuse_ratio',
      value: ratio(before),
      unit: 'ratio',
      goal: `>= 0.95 (${plain.requests.length} requests, ${what}, no context budget)`,
    },
    {
      measure: 'prefix_reuse_ratio_with_cuts',
      value: ratio(after),
      unit: 'ratio',
      goal: `>= 0.9 (${cut.requests.length} requests, ${what}, budget.contextTokens ${contextTokens}, half the largest prompt: ${cutResent.length} cuts)`,
    },
    {
      measure: 'context_cut_resent_tokens',
      value: Math.round(perCut),
      unit: 'tokens',
      goal: `context: what one cut costs, the tokens its next request re-sends beyond a usual step's ${usual} (o200k_base; mean over ${cutResent.length} cuts)`,
    },
  ];
}

/** The fake's prompt-token count, the one the agent loop compares with the budget. */
const promptTokens = (r: ChatRequest) => JSON.stringify(r.messages).length >> 2;

/**
 * Tokens (o200k_base) of each request after the first that equal the previous request's, counted
 * from the start: what a provider's prompt cache can serve; `resent`, per request, the rest. A
 * request is its tool declarations followed by its messages, in order.
 */
function sharedPrefix(requests: ChatRequest[]): { reused: number; total: number; resent: number[] } {
  const encode = (r: ChatRequest) =>
    tokenIds(JSON.stringify(TOOL_SPECS) + r.messages.map((m) => JSON.stringify(m)).join('\n'));
  let previous = encode(requests[0]);
  let reused = 0;
  let total = 0;
  const resent: number[] = [];
  for (const request of requests.slice(1)) {
    const tokens = encode(request);
    let same = 0;
    while (same < previous.length && same < tokens.length && tokens[same] === previous[same]) same++;
    reused += same;
    total += tokens.length;
    resent.push(tokens.length - same);
    previous = tokens;
  }
  return { reused, total, resent };
}
