import Docker from 'dockerode';
import { ModelClient } from '../src/model/client';
import { getEncoding } from 'js-tiktoken';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ModelPolicy } from '../src/agent/model-policy';
import { TOOL_SPECS } from '../src/agent/tools';
import { ArtifactStore } from '../src/artifacts/store';
import { templateQueries } from '../src/queries/template';
import { runRound, type RoundDeps } from '../src/rollout/round';
import { DockerSandbox, SANDBOX_LABEL } from '../src/sandbox/docker-sandbox';
import { baseImageTag } from '../src/environments/images';
import { setUpStage } from '../src/sandbox/stage-setup';
import type { Chain, Judgement, PullRequest } from '../src/schemas';
import { testEnvironments } from '../test/support/environments';
import { FakeOpenAI, type ChatRequest, type Reply } from '../test/support/fake-openai';
import { scriptedModel } from '../test/support/scripted-model';
import { writeLargeHistory } from '../test/support/large-history';
import { pythonChain } from '../test/support/python-chain';
import type { Figure } from './figure';

const COMMITS = 52_000;
const FILES = 2_000;
const READY_SAMPLES = 11;
const CLONE_SAMPLES = 3;
const EXECS = 100;
const BENCH_LABEL = { 'chainsmith.bench': 'sandbox' };

const say = (line: string) => console.error(`[sandbox] ${line}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The sandbox figures, all measured in this one run:
 * - time to a ready sandbox at a stage's commit of a repository with 52,000 commits: the stage's
 *   environment looked up, a container started from its image, the commit checked out over the
 *   prepared tree and tagged (what a rollout round does), next to a fresh clone of the same
 *   repository and a checkout of the commit in a container from the base image;
 * - one `docker exec` round trip;
 * - how much of each model request repeats the previous one, over a scripted 100-step rollout with
 *   one refinement round through the real round code.
 */
export async function run(): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-sandbox-'));
  const docker = new Docker();
  try {
    return [...(await readiness(docker, root)), await prefixReuse(docker, root)];
  } finally {
    const left = await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, 'chainsmith.bench=sandbox'] } });
    await Promise.all(left.map((c) => docker.getContainer(c.Id).remove({ force: true })));
    await rm(root, { recursive: true, force: true });
  }
}

async function readiness(docker: Docker, root: string): Promise<Figure[]> {
  let t0 = performance.now();
  const history = await writeLargeHistory(join(root, 'large'), { commits: COMMITS, files: FILES });
  say(`generated ${history.commits.length} commits (${FILES} modules) in ${round((performance.now() - t0) / 1000, 1)} s`);
  // Stage bases spread over the last half of the history, as a chain of recent PRs would be.
  const stages = [...Array(READY_SAMPLES).keys()].map((i) => history.commits[Math.floor(history.commits.length * (0.5 + (0.5 * i) / READY_SAMPLES))]);
  const chain = largeChain(history.path, stages);
  const environments = testEnvironments(docker);
  t0 = performance.now();
  await environments.forStage(chain, 0);
  say(`environment image built once in ${round((performance.now() - t0) / 1000, 1)} s`);

  const ready: number[] = [];
  const clones: number[] = [];
  let execs: number[] = [];
  for (let stage = 0; stage < stages.length; stage++) {
    const started = performance.now();
    const env = await environments.forStage(chain, stage);
    const sandbox = await DockerSandbox.create(docker, { image: env.image, mirrorPath: history.path, labels: BENCH_LABEL, memoryMb: 2048, pidsLimit: 512 });
    try {
      await setUpStage(sandbox, chain, stage, { progress: false });
      ready.push((performance.now() - started) / 1000);
      const head = (await sandbox.exec('git rev-parse HEAD', { timeoutSeconds: 10, maxOutputChars: 100 })).output.trim();
      if (head !== stages[stage]) throw new Error(`sandbox is at ${head}, not at ${stages[stage]}`);
      if (stage === 0) execs = await roundTrips(sandbox);
    } finally {
      await sandbox.destroy();
    }
    // Clones between the ready samples, so both see the same load on the host.
    if (stage % Math.ceil(stages.length / CLONE_SAMPLES) === 0) clones.push(await freshClone(docker, history.path, stages[stage]));
  }

  const readyMedian = median(ready);
  const cloneMedian = median(clones);
  say(`ready: median ${round(readyMedian, 3)} s of ${ready.map((s) => round(s, 3)).join(', ')}; fresh clone + checkout: median ${round(cloneMedian, 2)} s of ${clones.map((s) => round(s, 2)).join(', ')}`);
  return [
    { measure: 'ready_median_seconds', value: round(readyMedian, 3), unit: 's', goal: `<= 1 (a stage's sandbox at its commit, ${history.commits.length} commits, median of ${ready.length})` },
    { measure: 'ready_speedup_vs_clone', value: round(cloneMedian / readyMedian, 1), unit: 'ratio', goal: '>= 20 (fresh clone + checkout of the same commit in a new container / ready)' },
    { measure: 'exec_roundtrip_ms', value: round(median(execs), 1), unit: 'ms', goal: `<= 50 (median of ${execs.length}; a command through the sandbox's attached shell, from request to exit code)` },
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

async function roundTrips(sandbox: DockerSandbox): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < EXECS; i++) {
    const t0 = performance.now();
    await sandbox.exec('true', { timeoutSeconds: 10, maxOutputChars: 100 });
    times.push(performance.now() - t0);
  }
  return times;
}

/** What a sandbox without a prepared environment does: a new container, a clone of the repository, a checkout. */
async function freshClone(docker: Docker, path: string, sha: string): Promise<number> {
  const started = performance.now();
  const container = await docker.createContainer({
    Image: baseImageTag(),
    Cmd: ['sleep', 'infinity'],
    Labels: { [SANDBOX_LABEL]: '1', ...BENCH_LABEL },
    HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges'], Binds: [`${path}:/src:ro`] },
  });
  try {
    await container.start();
    const sandbox = DockerSandbox.attach(docker, container);
    // --no-local: the objects travel as a pack, as from a remote, not as a copy of the files.
    const r = await sandbox.exec(`git clone -q --no-local --no-checkout /src /work/clone && git -C /work/clone checkout -q ${sha}`, { timeoutSeconds: 600, maxOutputChars: 4000, cwd: '/work' });
    if (r.exitCode !== 0) throw new Error(`fresh clone failed: ${r.output}`);
    return (performance.now() - started) / 1000;
  } finally {
    await container.remove({ force: true });
  }
}

const ROUND0_STEPS = 70;
const ROUND1_STEPS = 30;

/** The agent's next call: reading, searching and running tests, as agents do, then submit. */
const benchAgent = scriptedModel({ agent: ({ round, step }) => benchStep(round > 0, step) });

function benchStep(feedback: boolean, step: number): Reply {
  const steps = feedback ? ROUND1_STEPS : ROUND0_STEPS;
  if (step >= steps - 1) return { toolCalls: [{ name: 'submit', args: { summary: `done after ${steps} steps` } }] };
  const tools: Reply[] = [
    { toolCalls: [{ name: 'view_file', args: { path: 'shapes/area.py' } }] },
    { toolCalls: [{ name: 'search', args: { pattern: 'def ' } }] },
    { toolCalls: [{ name: 'bash', args: { command: 'python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -n 5' } }] },
    { toolCalls: [{ name: 'bash', args: { command: `echo "note ${feedback ? 'r1' : 'r0'} step ${step}" >> NOTES.md && git status --short` } }] },
  ];
  return tools[step % tools.length];
}

async function prefixReuse(docker: Docker, root: string): Promise<Figure> {
  const { chain } = await pythonChain(join(root, 'shapes'), 'bench/shapes');
  const store = new ArtifactStore(join(root, 'artifacts'));
  const fake = new FakeOpenAI(benchAgent);
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const deps: RoundDeps = {
      docker,
      store,
      sandbox: { memoryMb: 1024, pidsLimit: 256 },
      environments: testEnvironments(docker),
      limits: { maxSteps: 200, commandTimeoutSeconds: 60, maxOutputChars: 8_000 },
      policyFor: () => new ModelPolicy(client, 'scripted'),
      host: hostname(),
      heartbeat: () => undefined,
    };
    const base = { runKey: `bench-prefix-${Date.now()}/1`, chainRef: await store.putJson(chain), queriesRef: await store.putJson(templateQueries(chain as Chain)), stage: 0 };
    const first = await runRound({ ...base, round: 0 }, deps);
    const verdict: Judgement = { score: 0.4, passed: false, feedback: 'The change is incomplete: cover the remaining case and keep the notes short.' };
    const second = await runRound(
      { ...base, round: 1, conversationRef: first.trajectoryRef, progressPatchRef: first.stagePatchRef, feedbackRef: await store.putJson(verdict) },
      deps,
    );
    const requests = fake.requests.map((r) => r.body);
    const { reused, total } = sharedPrefix(requests);
    say(`${first.steps + second.steps} steps in two rounds (${first.exitReason}, ${second.exitReason}); ${requests.length} requests, ${total} prompt tokens after the first, ${reused} of them the previous request's prefix`);
    return { measure: 'prefix_reuse_ratio', value: round(reused / total, 4), unit: 'ratio', goal: `>= 0.95 (${requests.length} requests over ${first.steps + second.steps} steps, one refinement round)` };
  } finally {
    await fake.stop();
  }
}

/**
 * Tokens (o200k_base) of each request after the first that equal the previous request's, counted
 * from the start: what a provider's prompt cache can serve. A request is its tool declarations
 * followed by its messages, in order.
 */
function sharedPrefix(requests: ChatRequest[]): { reused: number; total: number } {
  const encoder = getEncoding('o200k_base');
  const encode = (r: ChatRequest) => encoder.encode(JSON.stringify(TOOL_SPECS) + r.messages.map((m) => JSON.stringify(m)).join('\n'), [], []);
  let previous = encode(requests[0]);
  let reused = 0;
  let total = 0;
  for (const request of requests.slice(1)) {
    const tokens = encode(request);
    let same = 0;
    while (same < previous.length && same < tokens.length && tokens[same] === previous[same]) same++;
    reused += same;
    total += tokens.length;
    previous = tokens;
  }
  return { reused, total };
}
