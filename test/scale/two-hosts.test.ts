import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import Docker from 'dockerode';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { startChains } from '../../src/batches/start';
import { datasetPath } from '../../src/dataset/export';
import { HOST_LABEL } from '../../src/container/docker-container';
import { OWNER_LABEL } from '../../src/container/orphans';
import { roundContainers } from '../../src/stage/round-container';
import { TrainingSampleSchema, type Chain } from '../../src/schemas';
import type { RoundProgress } from '../../src/rollout/round';
import { FakeOpenAI } from '../support/fake-openai';
import { S3_TEST_ENV, startVersitygw, type S3Server } from '../support/s3-server';
import { agentLatency, expectedNotes, longRolloutScript, notesIn } from '../support/scripted-model';
import type { ChainResult } from '../../src/workflows/types';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';
import { WorkerProcess } from '../support/worker-process';

/**
 * Scale-out end to end: one orchestration worker and two sandbox-only workers standing for two Docker
 * hosts (own processes, own data directories, distinct host identities; here they share one engine,
 * which the host labels keep apart), one Temporal server and one bucket on a real S3 server.
 */
const CHAINS = 2;
const NOTES = 8;
const docker = new Docker();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every 100 ms until it returns something, at most `seconds`; says what it waited for. */
async function waitFor<T>(what: string, seconds: number, check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + seconds * 1000; Date.now() < deadline; await sleep(100)) {
    const got = await check();
    if (got !== undefined) return got;
  }
  throw new Error(`gave up after ${seconds} s waiting for ${what}`);
}

let s3: S3Server;
beforeAll(async () => {
  s3 = await startVersitygw();
  // This process writes the chains into the bucket too (`start` does); the SDK reads AWS_* from here.
  Object.assign(process.env, S3_TEST_ENV);
});
afterAll(() => s3?.stop());

test('two sandbox hosts share a batch; one is SIGKILLed mid-rollout: the other finishes its stages, its sandboxes go when it returns, every chain is exported once', async () => {
  const base = await demoChain('scale');
  // One repository, mined once, under two names: two chains (workflow ids derive from the name), more
  // than one host's single sandbox slot holds, so the batch must spread over both.
  const chains: Chain[] = [...Array(CHAINS).keys()].map((i) => ({
    ...base,
    id: `${base.id}-${i}`,
    repo: { ...base.repo, name: `${base.repo.name}-${i}` },
  }));
  const fake = new FakeOpenAI(longRolloutScript(base, { notesPerStage: NOTES }), { latencyMs: agentLatency(100) });
  const env = {
    ...s3.env,
    CHAINSMITH_S3_PREFIX: `scale-${Date.now()}`,
    OPENAI_BASE_URL: await fake.start(),
    OPENAI_API_KEY: 'sk-scale-test',
    CHAINSMITH_MODEL: 'scripted',
    CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3',
  };
  const config = testConfig(env);
  const taskQueue = `scale-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const orchestration = new WorkerProcess(taskQueue, { ...env, CHAINSMITH_HOME: config.dataDir }, [
    '--orchestration-only',
  ]);
  const host = async (name: string) =>
    new WorkerProcess(
      taskQueue,
      { ...env, CHAINSMITH_HOME: await mkdtemp(join(tmpdir(), `chainsmith-${name}-`)), CHAINSMITH_HOST: name },
      ['--sandbox-only', '--max-sandboxes', '1'],
    );
  const [hostA, hostB] = [await host('host-a'), await host('host-b')];
  const connection = await Connection.connect({ address: config.temporal.address });
  const all = [orchestration, hostA, hostB];
  try {
    all.forEach((w) => w.start());
    const started = await startChains(
      new Client({ connection, namespace: config.temporal.namespace }),
      config,
      chains,
      { policy: 'model', taskQueue },
    );
    const ids = new Set(started.map((s) => s.workflowId));
    /**
     * Rollout sandboxes of this batch (by their rounds' names: started for a round, taken from a
     * worker's pool, or prepared for a next stage), optionally on one host, with their workflow ids.
     */
    const sandboxes = async (onHost?: string) =>
      (
        await Promise.all(
          [...ids].map(async (workflowId) =>
            (await roundContainers(docker, { workflowId, host: onHost })).map((c) => ({ ...c, workflowId })),
          ),
        )
      ).flat();

    /** Whether some chain's rollout on `onHost` has saved a step (its heartbeat says so; it is sent after the checkpoint). */
    const savedStepOn = async (onHost: string) => {
      for (const s of started) {
        for (const pending of (await s.handle.describe()).raw.pendingActivities ?? []) {
          const [beat] = pending.heartbeatDetails?.payloads ?? [];
          const progress = beat ? defaultPayloadConverter.fromPayload<Partial<RoundProgress>>(beat) : undefined;
          if (pending.activityType?.name === 'rolloutRound' && progress?.host === onHost && (progress.step ?? 0) > 0)
            return true;
        }
      }
      return false;
    };

    // Kill host A while it runs a rollout that has saved steps, and only once every chain is past gold
    // validation (which, without a heartbeat, would wait out its 25-minute timeout instead).
    const runs = new Set<string>();
    const hosts = new Set<string>();
    const victim = await waitFor(
      'a rollout on host-a with a saved step, with every chain rolling out on both hosts',
      180,
      async () => {
        for (const c of await sandboxes()) {
          runs.add(c.workflowId);
          hosts.add(c.Labels[HOST_LABEL]);
        }
        const onA = (await sandboxes('host-a')).filter((c) => c.State === 'running');
        return runs.size === CHAINS && hosts.size === 2 && onA.length > 0 && (await savedStepOn('host-a'))
          ? onA
          : undefined;
      },
    );
    await hostA.kill();

    const results: ChainResult[] = await Promise.all(started.map((s) => s.handle.result()));
    expect(results.map((r) => r.status)).toEqual(chains.map(() => 'accepted'));

    // Every stage ran on one of the two hosts (the batch was spread over both before the kill).
    const rounds = results.flatMap((r) => r.results.map((s) => s.finalRound!));
    expect([...hosts].sort()).toEqual(['host-a', 'host-b']);
    expect(new Set(rounds.flatMap((r) => [r.host, ...(r.earlierHosts ?? [])]))).toEqual(new Set(['host-a', 'host-b']));
    // The killed rounds finished on host B, resumed from the checkpoints host A left in the shared bucket.
    // (A round killed before its first step resumes nothing; the one whose heartbeat said so had steps saved.)
    const moved = rounds.filter((r) => r.earlierHosts?.includes('host-a'));
    expect(moved.map((r) => r.host)).toEqual(moved.map(() => 'host-b'));
    expect(Math.max(0, ...moved.map((r) => r.stepsResumed ?? 0))).toBeGreaterThan(0);
    // No step lost or run twice across the move: every chain's tree holds each note once, in order.
    const store = ArtifactStore.fromConfig(config);
    for (const r of results)
      expect(notesIn(await store.getText(r.results[2].finalRound!.cumulativePatchRef))).toEqual(
        expectedNotes(3, NOTES),
      );

    // Host B's sandboxes went with the chains' cleanup; host A's stay while it is down ...
    expect(await sandboxes('host-b')).toHaveLength(0);
    // (Those started for their rounds, that is: a pooled one belongs to its dead worker process, and on a
    // machine other worker processes share, any of them may sweep it first; pool.test.ts has that sweep.)
    const leftOnA = await sandboxes('host-a');
    const forTheirRounds = victim.filter((c) => !c.Labels[OWNER_LABEL]);
    expect(leftOnA.map((c) => c.Id)).toEqual(expect.arrayContaining(forTheirRounds.map((c) => c.Id)));
    // ... and its start sweep removes them when it comes back.
    hostA.start();
    await waitFor("host-a's start sweep", 60, async () => ((await sandboxes()).length === 0 ? true : undefined));
    // (Containers started for their rounds go as sandboxes of closed runs, pooled ones as a dead worker's.)
    await waitFor("host-a's sweep report", 10, async () =>
      /removed \d+ (sandbox|container)/.test(hostA.output) ? true : undefined,
    );

    // The dataset (written by the orchestration worker) has every chain exactly once.
    const rows = readFileSync(datasetPath(config.dataDir, 'model'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => TrainingSampleSchema.parse(JSON.parse(l)));
    expect(rows.map((r) => r.metadata.repo).sort()).toEqual(chains.map((c) => c.repo.name).sort());
  } catch (err) {
    for (const [name, w] of [
      ['orchestration', orchestration],
      ['host-a', hostA],
      ['host-b', hostB],
    ] as const)
      console.error(`${name} output:\n${w.output.slice(-3000)}`);
    throw err;
  } finally {
    await Promise.all(all.map((w) => w.stop()));
    await connection.close();
    await fake.stop();
  }
}, 240_000);
