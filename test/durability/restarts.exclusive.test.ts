import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { startChains } from '../../src/cli/start';
import { ArtifactStore } from '../../src/artifacts/store';
import { FakeOpenAI } from '../support/fake-openai';
import { expectedNotes, longRolloutScript, NOTES_FILE } from '../support/scripted-model';
import type { ChainResult } from '../../src/workflows/types';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';
import { WorkerProcess } from '../support/worker-process';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');
const NOTES = 15;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stops a daemon the way a crash or an upgrade would, then lets provisioning start it again. */
async function restart(pattern: string, step: 'temporal' | 'docker'): Promise<void> {
  await run('pkill', ['-TERM', '-f', pattern]).catch(() => undefined);
  for (let i = 0; i < 100; i++) {
    if (await run('pgrep', ['-f', pattern]).then(() => false, () => true)) break;
    await sleep(100);
  }
  await run('bash', [resolve(root, 'scripts/provision.sh'), step], { cwd: root });
}

function notesOf(patch: string): string[] {
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${NOTES_FILE} `)) ?? '';
  return section.split('\n').filter((l) => l.startsWith('+stage')).map((l) => l.slice(1));
}

describe.each([
  ['the Temporal dev server (same SQLite file)', '^temporal server start-dev', 'temporal' as const],
  ['dockerd, which takes the running sandbox with it', '^dockerd ', 'docker' as const],
])('restarting %s mid-rollout', (_what, pattern, step) => {
  test('the chain still completes with every step exactly once', async () => {
    const chain = await demoChain(`restart-${step}`);
    // While the daemon goes down the model slows, so the rollout is still mid-stage when it is gone: a
    // daemon stopping waits for its containers, and a fast rollout could finish in that time.
    let restarting = false;
    const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: NOTES }), { latencyMs: () => (restarting ? 1500 : 100) });
    const env = { OPENAI_BASE_URL: await fake.start(), CHAINSMITH_MODEL: 'scripted', CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '5' };
    const config = testConfig(env);
    const taskQueue = `restart-${step}-${Date.now()}`;
    const worker = new WorkerProcess(taskQueue, { ...env, CHAINSMITH_HOME: config.dataDir });
    const { Client, Connection } = await import('@temporalio/client');
    let connection = await Connection.connect({ address: config.temporal.address });
    try {
      worker.start();
      const [started] = await startChains(new Client({ connection }), config, [chain], { policy: 'model', taskQueue });
      // Mid-rollout of stage 2: its third agent step (query writer and judge calls do not count).
      while (fake.requestsBy('agent').length < NOTES + 5) await sleep(50);
      restarting = true;
      await restart(pattern, step);
      restarting = false;
      await connection.close();
      connection = await Connection.connect({ address: config.temporal.address });
      const result: ChainResult = await new Client({ connection }).workflow.getHandle(started.workflowId).result();
      expect(result.status).toBe('accepted');
      const store = new ArtifactStore(`${config.dataDir}/artifacts`);
      expect(notesOf(await store.getText(result.results[2].finalRound!.cumulativePatchRef))).toEqual(expectedNotes(3, NOTES));
      if (step === 'docker') expect(result.results[1].finalRound!.stepsResumed).toBeGreaterThan(0);
    } catch (err) {
      console.error(`worker output:\n${worker.output.slice(-5000)}`);
      throw err;
    } finally {
      await worker.stop();
      await connection.close();
      await fake.stop();
    }
  }, 300_000);
});
