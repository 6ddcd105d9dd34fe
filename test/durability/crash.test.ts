import Docker from 'dockerode';
import { Client, Connection } from '@temporalio/client';
import { startChains } from '../../src/cli/start';
import { ArtifactStore } from '../../src/artifacts/store';
import { runLabel } from '../../src/rollout/round';
import { RUN_LABEL } from '../../src/sandbox/docker-sandbox';
import { FakeOpenAI } from '../../src/testing/fake-openai';
import { expectedNotes, longRolloutScript, NOTES_FILE } from '../../src/testing/scripted-agent';
import type { ChainResult } from '../../src/workflows/messages';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';
import { WorkerProcess } from '../support/worker-process';

const NOTES = 10;
const KILLS = 20;

/** The lines a patch adds to NOTES.log. */
function notesIn(patch: string): string[] {
  const section = patch.split(/^diff --git /m).find((s) => s.startsWith(`a/${NOTES_FILE} `)) ?? '';
  return section.split('\n').filter((l) => l.startsWith('+stage')).map((l) => l.slice(1));
}

test(`a worker SIGKILLed ${KILLS} times mid-rollout: the chain completes, each kill redoes at most one step`, async () => {
  const chain = await demoChain('crash');
  const fake = new FakeOpenAI(longRolloutScript(chain, { notesPerStage: NOTES }), { latencyMs: 100 });
  const baseUrl = await fake.start();
  const env = { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'sk-crash-test', CHAINSMITH_MODEL: 'scripted', CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '3' };
  const config = testConfig(env);
  const taskQueue = `crash-${Date.now()}`;
  const worker = new WorkerProcess(taskQueue, { ...env, CHAINSMITH_HOME: config.dataDir });
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection });
  try {
    worker.start();
    const [started] = await startChains(client, config, [chain], { policy: 'model', taskQueue });
    const done = started.handle.result();

    // Kill right after the model was asked for a "note" step: during the model call or the tool run.
    const agentRequests = () => fake.requests.filter((r) => !r.body.response_format);
    const uniqueSteps = () => new Set(agentRequests().map((r) => JSON.stringify(r.body.messages))).size;
    const targets = new Set<number>();
    const eligible = [...Array(chain.prs.length * (NOTES + 2)).keys()].filter((i) => i % (NOTES + 2) >= 1 && i % (NOTES + 2) < NOTES);
    while (targets.size < KILLS) targets.add(eligible[Math.floor(Math.random() * eligible.length)]);
    let kills = 0;
    let finished = false;
    void done.finally(() => (finished = true));
    for (const target of [...targets].sort((a, b) => a - b)) {
      while (!finished && uniqueSteps() <= target) await new Promise((r) => setTimeout(r, 10));
      if (finished) break;
      await new Promise((r) => setTimeout(r, Math.random() * 150));
      await worker.kill();
      kills += 1;
      worker.start();
    }
    const result: ChainResult = await done;

    const total = agentRequests().length;
    const redone = total - uniqueSteps();
    console.log(`crash test: ${kills} SIGKILLs, ${total} agent model calls, ${redone} steps re-executed (${(redone / kills).toFixed(2)} per kill)`);
    expect(kills).toBe(KILLS);
    expect(result.status).toBe('accepted');
    expect(result.results.map((s) => [s.prNumber, s.status, s.rounds.length])).toEqual([
      [2, 'accepted', 1],
      [4, 'accepted', 1],
      [6, 'accepted', 1],
    ]);
    expect(redone).toBeLessThanOrEqual(kills);

    // The tree itself shows no step lost or run twice: every note line once, in order.
    const store = new ArtifactStore(`${config.dataDir}/artifacts`);
    const finalPatch = await store.getText(result.results[2].finalRound!.cumulativePatchRef);
    expect(notesIn(finalPatch)).toEqual(expectedNotes(3, NOTES));

    const leftForRun = (await new Docker().listContainers({ all: true, filters: { label: ['chainsmith.sandbox'] } })).filter((c) =>
      (c.Labels[RUN_LABEL] ?? '').startsWith(runLabel(started.workflowId)),
    );
    expect(leftForRun).toHaveLength(0);
  } finally {
    await worker.stop();
    await connection.close();
    await fake.stop();
  }
}, 600_000);
