import { activityInfo } from '@temporalio/activity';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import type { Activities } from '../../src/activities';
import type { ArtifactRef, RoundResult } from '../../src/schemas';
import { testConfig, workflowBundle } from '../support/engines';
import { buildDeps } from '../../src/workers/deps';
import { createWorkers } from '../../src/workers/worker';
import { chainWorkflow } from '../../src/workflows';
import type { ActivityName } from '../../src/workflows/activity-table';
import { ChainStage, ChainStatusKey, pauseSignal, progressQuery, resumeSignal } from '../../src/workflows/messages';
import type { ChainResult, ChainState, ChainWorkflowInput, StageCheck } from '../../src/workflows/types';

/**
 * The chain workflow's branches, on the dev server and the real workflow bundle and worker routing,
 * against fake activities registered under the real names: each chain takes a second, not the minutes
 * a Docker sandbox and a scripted model would. What the activities do is tested where they live.
 */

interface Script {
  /** Judge scores in call order (default: every round passes). */
  scores?: number[];
  /** What gold validation says of a stage (default: judgeable). */
  check?: (stage: number) => Partial<StageCheck>;
  /** The activity that fails, permanently, and at which stage (default: its first call). */
  fail?: { name: ActivityName; stage?: number };
  /** The judge waits for this before it answers. */
  judgeWaits?: Promise<void>;
}

interface Call {
  name: ActivityName;
  input: any;
}

const PRS = [11, 12, 13];
const config = testConfig();
const host = config.worker.host;
const scripts = new Map<string, Script>();
const calls = new Map<string, Call[]>();
const ref = (...what: unknown[]): ArtifactRef =>
  `sha256:${createHash('sha256').update(JSON.stringify(what)).digest('hex')}`;

/** Records the call under its workflow, then fails it if the script says so. */
function called(name: ActivityName, input: any): Script {
  const workflowId = activityInfo().workflowExecution!.workflowId;
  calls.set(workflowId, [...(calls.get(workflowId) ?? []), { name, input }]);
  const script = scripts.get(workflowId) ?? {};
  const { fail } = script;
  if (fail?.name === name && (fail.stage === undefined || fail.stage === input.stage)) {
    throw ApplicationFailure.nonRetryable(`${name} broke`, 'FakeFailure');
  }
  return script;
}

const fakes: Activities = {
  async validateGold(input) {
    const check = called('validateGold', input).check?.(input.stage);
    return { goldTestsRef: ref('gold', input.stage), status: 'verified', judgeable: true, ...check };
  },
  async cutChain(input) {
    called('cutChain', input);
    return { chainRef: ref('cut', input.chainRef, input.stages) };
  },
  async synthesizeQueries(input) {
    called('synthesizeQueries', input);
    return { queriesRef: ref('queries', input.chainRef), leakRate: 0 };
  },
  async rolloutRound(input): Promise<RoundResult> {
    called('rolloutRound', input);
    const round = (part: string) => ref(part, input.runKey, input.stage, input.round);
    return {
      round: input.round,
      trajectoryRef: round('trajectory'),
      stagePatchRef: round('stage patch'),
      cumulativePatchRef: round('cumulative patch'),
      testsAfterRef: round('tests'),
      carry: { fromStages: PRS.slice(0, input.stage), goldInBase: true, conflicts: [] },
      steps: 3,
      stepsResumed: 0,
      reusedSandbox: false,
      host,
      exitReason: 'submitted',
    };
  },
  async judgeStage(input) {
    const script = called('judgeStage', input);
    await script.judgeWaits;
    const judged = calls
      .get(activityInfo().workflowExecution!.workflowId)!
      .filter((c) => c.name === 'judgeStage').length;
    const score = script.scores?.[judged - 1] ?? 0.9;
    return {
      score,
      passed: score >= 0.8,
      judgementRef: ref('judgement', input.stagePatchRef),
      summary: `scored ${score}`,
    };
  },
  async exportSample(input) {
    called('exportSample', input);
    return { sampleId: `sample-${input.trajectoryRef.slice(7, 15)}`, path: '/data/sft.jsonl' };
  },
  async cleanupRun(input) {
    called('cleanupRun', input);
    return 0;
  },
  async batchPage() {
    throw new Error('no batch runs here');
  },
  async mineForSchedule() {
    throw new Error('no scheduled run here');
  },
};

let connection: Connection;
let nativeConnection: NativeConnection;
let client: Client;
let workers: Worker[];
let running: Promise<unknown>;
const taskQueue = `branches-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: config.temporal.address });
  nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: config.temporal.namespace });
  workers = await createWorkers({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    deps: buildDeps(config),
    activities: fakes,
    taskQueue,
    workflowBundle: await workflowBundle(),
  });
  running = Promise.all(workers.map((w) => w.run()));
});

afterAll(async () => {
  workers.forEach((w) => w.shutdown());
  await running;
  await connection.close();
  await nativeConnection.close();
});

let chains = 0;
async function start(
  script: Script,
  input: Partial<ChainWorkflowInput> = {},
): Promise<WorkflowHandle<typeof chainWorkflow>> {
  const workflowId = `${taskQueue}-${++chains}`;
  scripts.set(workflowId, script);
  const args: ChainWorkflowInput = {
    chainId: `chain-${chains}`,
    repo: 'example/branches',
    prNumbers: PRS,
    chainRef: ref('chain', chains),
    policy: 'model',
    maxRefinements: 2,
    heartbeatTimeoutSeconds: 30,
    ...input,
  };
  return client.workflow.start(chainWorkflow, { workflowId, taskQueue, args: [args] });
}

async function run(
  script: Script,
  input?: Partial<ChainWorkflowInput>,
): Promise<{ result: ChainResult; calls: Call[]; handle: WorkflowHandle }> {
  const handle = await start(script, input);
  const result = await handle.result();
  return { result, calls: calls.get(handle.workflowId) ?? [], handle };
}

const names = (cs: Call[]) => cs.map((c) => c.name);
const of = (cs: Call[], name: ActivityName) => cs.filter((c) => c.name === name).map((c) => c.input);

test('each stage starts from the agent’s own patch, and a rejected round is refined with the judge’s feedback', async () => {
  const { result, calls: cs } = await run({ scores: [0.9, 0.4, 0.95, 0.9] });
  expect(result.status).toBe('accepted');
  expect(result.results.map((s) => [s.prNumber, s.status, s.rounds.map((r) => r.score)])).toEqual([
    [11, 'accepted', [0.9]],
    [12, 'accepted', [0.4, 0.95]],
    [13, 'accepted', [0.9]],
  ]);
  const [first, rejected, refined, third] = of(cs, 'rolloutRound');
  const [, verdict] = of(cs, 'judgeStage');
  expect(rejected).toMatchObject({ stage: 1, round: 0, carryPatchRef: ref('cumulative patch', first.runKey, 0, 0) });
  expect([rejected.progressPatchRef, rejected.feedbackRef]).toEqual([undefined, undefined]);
  expect(refined).toMatchObject({
    stage: 1,
    round: 1,
    progressPatchRef: verdict.stagePatchRef,
    feedbackRef: ref('judgement', verdict.stagePatchRef),
  });
  expect(third).toMatchObject({
    stage: 2,
    conversationRef: ref('trajectory', first.runKey, 1, 1),
    carryPatchRef: ref('cumulative patch', first.runKey, 1, 1),
  });
  expect(of(cs, 'exportSample')[0].stages).toEqual([
    { prNumber: 11, score: 0.9, rounds: 1 },
    { prNumber: 12, score: 0.95, rounds: 2 },
    { prNumber: 13, score: 0.9, rounds: 1 },
  ]);
  expect(result.sampleId).toMatch(/^sample-/);
  // The sandboxes of every host that ran a round are cleaned up once the chain ends.
  expect(names(cs).at(-1)).toBe('cleanupRun');
});

test('a stage still rejected after its last refinement ends the chain as rejected, with the last verdict', async () => {
  const { result, calls: cs, handle } = await run({ scores: [0.9, 0.3, 0.5, 0.6] });
  expect(result.status).toBe('rejected');
  expect(result.reason).toBe('stage 2 (PR #12) was rejected after 3 rounds (last score 0.60: scored 0.6)');
  expect(result.results.map((s) => s.status)).toEqual(['accepted', 'rejected']);
  expect(of(cs, 'rolloutRound').map((r) => [r.stage, r.round])).toEqual([
    [0, 0],
    [1, 0],
    [1, 1],
    [1, 2],
  ]);
  expect(names(cs)).not.toContain('exportSample');
  const attributes = (await handle.describe()).typedSearchAttributes;
  expect([attributes.get(ChainStatusKey), attributes.get(ChainStage)]).toEqual(['rejected', 2]);
});

describe('a failing step ends the chain as failed, saying which step and why', () => {
  test.each([
    { name: 'validateGold', stage: 1, reason: 'the stages could not be validated: validateGold broke', stages: [] },
    { name: 'synthesizeQueries', reason: 'the queries could not be written: synthesizeQueries broke', stages: [] },
    {
      name: 'rolloutRound',
      stage: 1,
      reason: 'stage 2 (PR #12) failed: rolloutRound broke',
      stages: ['accepted', 'failed'],
    },
    {
      name: 'judgeStage',
      stage: 1,
      reason: 'stage 2 (PR #12) could not be judged: judgeStage broke',
      stages: ['accepted', 'failed'],
    },
    {
      name: 'exportSample',
      reason: 'the accepted chain could not be exported: exportSample broke',
      stages: ['accepted', 'accepted', 'accepted'],
    },
  ] as const)('$name', async ({ name, stage, reason, stages }) => {
    const { result, calls: cs } = await run({ fail: { name, stage } });
    expect(result.status).toBe('failed');
    expect(result.reason).toBe(reason);
    expect(result.results.map((s) => s.status)).toEqual(stages);
    // Nothing runs after the failed step but the cleanup of hosts that ran a round.
    const after = names(cs).slice(names(cs).lastIndexOf(name) + 1);
    expect(after).toEqual(stages.length ? ['cleanupRun'] : []);
  });
});

test('a pause during judging holds the chain before its next rollout; resume carries on', async () => {
  let release!: () => void;
  const handle = await start({ judgeWaits: new Promise<void>((r) => (release = r)) });
  const cs = () => calls.get(handle.workflowId) ?? [];
  await until(() => names(cs()).includes('judgeStage'));
  await handle.signal(pauseSignal);
  release();
  await until(async () => (await handle.query(progressQuery)).status === 'paused');
  const held = await handle.query(progressQuery);
  expect([held.stage, held.results.map((s) => s.status)]).toEqual([1, ['accepted', 'running']]);
  // While it waits, it removes what it holds on the host it ran on (the next stage's prepared sandbox).
  await until(() => names(cs()).includes('cleanupRun'));
  expect(of(cs(), 'cleanupRun')).toEqual([{ runKey: `${handle.workflowId}/${(await handle.describe()).runId}` }]);
  await new Promise((r) => setTimeout(r, 500));
  expect(of(cs(), 'rolloutRound')).toHaveLength(1);
  await handle.signal(resumeSignal);
  expect((await handle.result()).status).toBe('accepted');
  expect(of(cs(), 'rolloutRound').map((r) => r.stage)).toEqual([0, 1, 2]);
});

describe('gold validation gates the chain before anything is spent', () => {
  const check = (stage: number): Partial<StageCheck> =>
    stage === 2
      ? {
          status: 'no-verifying-test',
          judgeable: false,
          reason: 'no test of the PR fails before it and passes after it',
        }
      : {};

  test('the chain is cut before its first stage that nothing can judge, and runs the stages before it', async () => {
    const { result, calls: cs } = await run({ check });
    const cut = ref('cut', ref('chain', chains), 2);
    expect(result.status).toBe('accepted');
    expect(result.cut).toEqual({
      before: 2,
      reason: 'stage 3 (PR #13) cannot be judged: no test of the PR fails before it and passes after it',
      chainRef: cut,
    });
    expect([result.stages, result.results.map((s) => s.prNumber)]).toEqual([2, [11, 12]]);
    expect(names(cs).slice(0, 5)).toEqual([
      'validateGold',
      'validateGold',
      'validateGold',
      'cutChain',
      'synthesizeQueries',
    ]);
    expect([...of(cs, 'rolloutRound'), ...of(cs, 'exportSample')].map((i) => i.chainRef)).toEqual([cut, cut, cut]);
  });

  test('a chain whose first stage nothing can judge is skipped: no query, no rollout, no later stage validated', async () => {
    const { result, calls: cs } = await run({ check: (stage) => check(2 - stage) });
    expect([result.status, result.reason]).toEqual([
      'skipped',
      'stage 1 (PR #11) cannot be judged: no test of the PR fails before it and passes after it',
    ]);
    // Stages are validated one at a time up to the first that nothing can judge.
    expect(names(cs)).toEqual(['validateGold']);
  });
});

test('a run handed a chain state (continue-as-new) carries on from it: no validation or queries again, the cut kept', async () => {
  const cutRef = ref('a cut chain');
  const state: ChainState = {
    progress: {
      status: 'running',
      stage: 1,
      stages: 2,
      round: 0,
      queriesRef: ref('earlier queries'),
      cut: { before: 2, reason: 'stage 3 (PR #13) cannot be judged: no test', chainRef: cutRef },
      results: [
        {
          prNumber: 11,
          status: 'accepted',
          rounds: [{ round: 0, score: 0.85, passed: true, judgementRef: ref('j0') }],
        },
      ],
    },
    chainRef: cutRef,
    goldTestsRefs: [ref('g0'), ref('g1'), ref('g2')],
    conversationRef: ref('conversation'),
    carryPatchRef: ref('carry'),
    hosts: [],
  };
  const { result, calls: cs } = await run({}, { state });
  expect(result.status).toBe('accepted');
  expect(names(cs)).toEqual(['rolloutRound', 'judgeStage', 'exportSample', 'cleanupRun']);
  expect(of(cs, 'rolloutRound')[0]).toMatchObject({
    stage: 1,
    chainRef: cutRef,
    queriesRef: ref('earlier queries'),
    conversationRef: ref('conversation'),
    carryPatchRef: ref('carry'),
  });
  expect(of(cs, 'judgeStage')[0].goldTestsRef).toBe(ref('g1'));
  expect(of(cs, 'exportSample')[0].stages.map((s: { score: number }) => s.score)).toEqual([0.85, 0.9]);
});

async function until(check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
