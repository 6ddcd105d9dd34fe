import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { ArtifactStore } from '../../src/artifacts/store';
import { startChains } from '../../src/batches/start';
import { packageRoot } from '../../src/paths';
import type { ChainResult } from '../../src/workflows/types';
import { demoChain } from './demo-chain';
import { testConfig } from './engines';
import { FakeOpenAI } from './fake-openai';
import { expectedNotes, longRolloutScript, notesIn } from './scripted-model';
import { WorkerProcess } from './worker-process';

const run = promisify(execFile);
const NOTES = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops the daemon whose command line matches `pattern` the way a crash or an upgrade would (SIGTERM),
 * waits until it is gone, then lets provisioning start it again, with `env` naming which one.
 */
export async function restartDaemon(
  pattern: string,
  step: 'temporal',
  env: Record<string, string> = {},
): Promise<void> {
  const gone = async (ms: number) => {
    for (let i = 0; i < ms / 100; i++) {
      if (
        await run('pgrep', ['-f', pattern]).then(
          () => false,
          () => true,
        )
      )
        return true;
      await sleep(100);
    }
    return false;
  };
  // One still stopping would answer provisioning's health check, and then be gone: SIGKILL it first.
  await run('pkill', ['-TERM', '-f', pattern]).catch(() => undefined);
  if (!(await gone(15_000))) {
    await run('pkill', ['-KILL', '-f', pattern]).catch(() => undefined);
    if (!(await gone(5_000))) throw new Error(`${step}: the daemon matching ${pattern} did not stop`);
  }
  await run('bash', [resolve(packageRoot(), 'scripts/provision.sh'), step], {
    cwd: packageRoot(),
    env: { ...process.env, ...env },
  });
}

/**
 * A demo chain on a `chainsmith worker` process, with `restart` run mid-rollout of stage 2 (its third
 * agent step): the chain must still be accepted with every step exactly once. `env` is given to the
 * worker and the config (a private Temporal server's address, say).
 */
export async function restartMidRollout(name: string, restart: () => Promise<void>, env: Record<string, string> = {}) {
  const chain = await demoChain(`restart-${name}`);
  // While the daemon goes down the model slows, so the rollout is still mid-stage when it is gone: a
  // daemon stopping waits for its containers, and a fast rollout could finish in that time.
  let restarting = false;
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: NOTES }), {
    latencyMs: () => (restarting ? 1500 : 100),
  });
  const workerEnv = {
    ...env,
    OPENAI_BASE_URL: await fake.start(),
    CHAINSMITH_MODEL: 'scripted',
    CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '5',
  };
  const config = testConfig(workerEnv);
  const taskQueue = `restart-${name}-${Date.now()}`;
  const worker = new WorkerProcess(taskQueue, { ...workerEnv, CHAINSMITH_HOME: config.dataDir });
  const { Client, Connection } = await import('@temporalio/client');
  let connection = await Connection.connect({ address: config.temporal.address });
  try {
    worker.start();
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const [started] = await startChains(client, config, [chain], { policy: 'model', taskQueue });
    const handle = client.workflow.getHandle(started.workflowId);
    // Mid-rollout of stage 2: its third agent step (query writer and judge calls do not count). A chain
    // that ends before that (a stage failed) is the result: say why rather than wait for the test's timeout.
    for (let i = 0; fake.requestsBy('agent').length < NOTES + 5; i++) {
      if (i % 20 === 19 && (await handle.describe()).status.name !== 'RUNNING')
        return { result: (await handle.result()) as ChainResult, notes: [], expected: expectedNotes(3, NOTES) };
      await sleep(50);
    }
    restarting = true;
    await restart();
    restarting = false;
    await connection.close();
    connection = await Connection.connect({ address: config.temporal.address });
    const result: ChainResult = await new Client({ connection, namespace: config.temporal.namespace }).workflow
      .getHandle(started.workflowId)
      .result();
    if (result.status !== 'accepted') return { result, notes: [], expected: expectedNotes(3, NOTES) };
    const store = new ArtifactStore(`${config.dataDir}/artifacts`);
    return {
      result,
      notes: notesIn(await store.getText(result.results[2].finalRound!.cumulativePatchRef)),
      expected: expectedNotes(3, NOTES),
    };
  } catch (err) {
    console.error(`worker output:\n${worker.output.slice(-5000)}`);
    throw err;
  } finally {
    await worker.stop();
    await connection.close();
    await fake.stop();
  }
}
