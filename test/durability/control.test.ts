import Docker from 'dockerode';
import { WorkflowFailedError } from '@temporalio/client';
import { controlCommand } from '../../src/cli/control';
import { startChains } from '../../src/batches/start';
import { ArtifactStore } from '../../src/artifacts/store';
import { POOL_LABEL, PREPARED_LABEL } from '../../src/stage/pool';
import { roundContainers } from '../../src/stage/round-container';
import type { Chain } from '../../src/schemas';
import type { Caller } from '../../src/model/markers';
import { FakeOpenAI } from '../support/fake-openai';
import { expectedNotes, longRolloutScript, notesIn } from '../support/scripted-model';
import { progressQuery } from '../../src/workflows/messages';
import { demoChain } from '../support/demo-chain';
import { startEngines, testConfig, type Engines } from '../support/engines';

const NOTES = 12;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The chain's round containers, found as its cleanup finds them (by name): started for a round, or taken from the pool. */
const sandboxesOf = (workflowId: string) => roundContainers(new Docker(), { workflowId });

describe('controlling a running chain', () => {
  let chain: Chain;
  let fake: FakeOpenAI;
  let engines: Engines;
  let config: ReturnType<typeof testConfig>;
  const agentCalls = () => fake.requests.filter((r) => !r.body.response_format).length;
  let running: Promise<unknown>;
  let held: { caller: Caller; until: Promise<void>; release: () => void } | undefined;
  /** Holds `caller`'s model calls in flight from now until the returned release is called (or the test ends). */
  const hold = (caller: Caller): (() => void) => {
    let release!: () => void;
    const until = new Promise<void>((r) => (release = r));
    held = { caller, until, release };
    return () => {
      held = undefined;
      release();
    };
  };
  afterEach(() => {
    held?.release();
    held = undefined;
  });
  const progressOf = (started: {
    handle: { query: (q: typeof progressQuery) => Promise<{ status: string; stage: number }> };
  }) => started.handle.query(progressQuery);

  beforeAll(async () => {
    chain = await demoChain('control');
    fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: NOTES }), {
      latencyMs: 150,
      hold: (_req, marker) => (held && marker?.caller === held.caller ? held.until : undefined),
    });
    config = testConfig({
      OPENAI_BASE_URL: await fake.start(),
      CHAINSMITH_MODEL: 'scripted',
      CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3',
    });
    engines = await startEngines(config);
    running = Promise.all(engines.workers.map((w) => w.run()));
  });

  afterAll(async () => {
    engines.workers.forEach((w) => w.shutdown());
    await running;
    await engines.close();
    await fake.stop();
  });

  test('pause stops the agent in the middle of its round, holding no sandbox; resume carries on from its last saved step', async () => {
    const [started] = await startChains(engines.client, config, [chain], {
      policy: 'model',
      taskQueue: engines.taskQueue,
    });
    await until(() => agentCalls() >= 5, 'five agent steps');
    // The agent's next model call stays in flight: the pause reaches the round while it runs, not after it ended.
    const release = hold('agent');
    await controlCommand(engines.client, 'pause', started.workflowId);
    await until(async () => (await progressOf(started)).status === 'paused', 'the paused status');
    const callsWhenPaused = agentCalls();
    await sleep(1_000);
    expect(agentCalls()).toBe(callsWhenPaused);
    expect((await progressOf(started)).stage).toBe(0);
    // Its round's sandbox and the one prepared for stage 2 are gone.
    expect(await sandboxesOf(started.workflowId)).toHaveLength(0);
    release();

    await controlCommand(engines.client, 'resume', started.workflowId);
    const result = await started.handle.result();
    expect(result.status).toBe('accepted');
    const store = new ArtifactStore(`${config.dataDir}/artifacts`);
    expect(notesIn(await store.getText(result.results[2].finalRound!.cumulativePatchRef))).toEqual(
      expectedNotes(3, NOTES),
    );
  });

  test("cancel stops a rollout whose sandbox came from the pool and removes its sandboxes (the next stage's prepared one too); cancelling it again says it has finished", async () => {
    const other = { ...chain, repo: { ...chain.repo, name: `${chain.repo.name}-cancel` } };
    const [started] = await startChains(engines.client, config, [other], {
      policy: 'model',
      taskQueue: engines.taskQueue,
    });
    const before = agentCalls();
    await until(() => agentCalls() >= before + 3, 'three agent steps');
    // The round stays in its agent's next model call, so it is still running when the checks below look.
    const release = hold('agent');
    // The pool is on by default and the first chain left it warm: the round took a pooled container
    // (no run label on it, only its round's name), and stage 2's is being prepared beside it.
    await until(async () => (await sandboxesOf(started.workflowId)).length === 2, "stage 2's prepared sandbox");
    const [round, prepared] = (await sandboxesOf(started.workflowId)).sort(
      (a, b) => Number(!!a.Labels[PREPARED_LABEL]) - Number(!!b.Labels[PREPARED_LABEL]),
    );
    expect([round.Labels[POOL_LABEL], round.Labels[PREPARED_LABEL], prepared.Labels[PREPARED_LABEL]]).toEqual([
      '1',
      undefined,
      '1',
    ]);
    await controlCommand(engines.client, 'cancel', started.workflowId);
    const err = await started.handle.result().catch((e) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    release();
    expect((await started.handle.describe()).status.name).toBe('CANCELLED');
    expect(await sandboxesOf(started.workflowId)).toHaveLength(0);
    await expect(controlCommand(engines.client, 'cancel', started.workflowId)).rejects.toThrow(
      `${started.workflowId} has already finished (cancelled): there is nothing to cancel`,
    );
  });

  test('a pause between rounds (here while the judge runs) removes the sandbox prepared for the next stage', async () => {
    const other = { ...chain, repo: { ...chain.repo, name: `${chain.repo.name}-between` } };
    const release = hold('judge');
    const judgeCalls = () => fake.requests.filter((r) => r.marker?.caller === 'judge').length;
    const before = judgeCalls();
    const [started] = await startChains(engines.client, config, [other], {
      policy: 'model',
      taskQueue: engines.taskQueue,
    });
    await until(() => judgeCalls() > before, "stage 1's judge call");
    await until(
      async () => (await sandboxesOf(started.workflowId)).some((c) => c.Labels[PREPARED_LABEL] === '1'),
      "stage 2's prepared sandbox",
    );
    await controlCommand(engines.client, 'pause', started.workflowId);
    release();
    await until(async () => (await progressOf(started)).status === 'paused', 'the paused status');
    expect((await progressOf(started)).stage).toBe(1);
    await until(
      async () => (await sandboxesOf(started.workflowId)).length === 0,
      'no sandbox of the paused chain',
      30_000,
    );
    await controlCommand(engines.client, 'cancel', started.workflowId);
    expect(await started.handle.result().catch((e) => e)).toBeInstanceOf(WorkflowFailedError);
  });

  test('starting the same chain twice attaches to the first run instead of running it again', async () => {
    const other = { ...chain, repo: { ...chain.repo, name: `${chain.repo.name}-twice` } };
    const [first] = await startChains(engines.client, config, [other], {
      policy: 'gold-replay',
      taskQueue: engines.taskQueue,
    });
    const [second] = await startChains(engines.client, config, [other], {
      policy: 'gold-replay',
      taskQueue: engines.taskQueue,
    });
    expect([first.existed, second.existed]).toEqual([false, true]);
    expect((await first.handle.result()).status).toBe('accepted');
    const [third] = await startChains(engines.client, config, [other], {
      policy: 'gold-replay',
      taskQueue: engines.taskQueue,
    });
    expect(third.existed).toBe(true);
    const runs = [];
    for await (const wf of engines.client.workflow.list({ query: `WorkflowId = '${first.workflowId}'` }))
      runs.push(wf.runId);
    expect(runs).toHaveLength(1);
  });

  test('pausing an unknown chain is a clear error', async () => {
    await expect(controlCommand(engines.client, 'pause', 'chain-no-such-thing')).rejects.toThrow(
      'no chain or batch with id chain-no-such-thing',
    );
  });
});
