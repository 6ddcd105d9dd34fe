import { Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { startBatch } from '../../src/batches/start';
import { FakeOpenAI } from '../support/fake-openai';
import { longRolloutScript } from '../support/scripted-model';
import type { ChainResult } from '../../src/workflows/types';
import { WORKFLOW_TASK_TIMEOUT } from '../../src/workflows/task-queues';
import { demoChain } from '../support/demo-chain';
import { startEngines, testConfig } from '../support/engines';

const CHAINS = 4;

test(`a batch of ${CHAINS} chains against a model that faults on 20% of calls: most are accepted through retries, the others end with their reason`, async () => {
  const base = await demoChain('faults');
  const chains = [...Array(CHAINS).keys()].map((i) => ({
    ...base,
    repo: { ...base.repo, name: `${base.repo.name}-${i}` },
  }));
  const fake = new FakeOpenAI(longRolloutScript(base, { notesPerStage: 4 }), {
    faultRate: 0.2,
    seed: 7,
    hangMs: 1_500,
  });
  const config = testConfig({
    OPENAI_BASE_URL: await fake.start(),
    CHAINSMITH_MODEL: 'scripted',
    CHAINSMITH_MODEL_TIMEOUT_MS: '1000',
    CHAINSMITH_MODEL_RETRY_BASE_MS: '50',
    CHAINSMITH_HEARTBEAT_TIMEOUT_SECONDS: '5',
  });
  const engines = await startEngines(config);
  try {
    const batch = await startBatch(engines.client, config, chains, {
      policy: 'model',
      taskQueue: engines.taskQueue,
      concurrency: 2,
    });
    const counts = await Promise.all(engines.workers.map((w) => w.runUntil(batch.handle.result()))).then(() =>
      batch.handle.result(),
    );

    expect(counts.accepted + counts.rejected + counts.failed).toBe(CHAINS);
    expect(counts.cancelled + counts.existing).toBe(0);
    // Retries are what carries a chain past a fault: a run where every chain fails on its first one ends too.
    expect(counts.accepted).toBeGreaterThan(CHAINS / 2);
    const faults = Object.values(fake.faultCounts).reduce((a, b) => a + b, 0);
    expect(faults / fake.requests.length).toBeGreaterThan(0.1);
    for (const kind of Object.keys(fake.faultCounts))
      expect(fake.faultCounts[kind as keyof typeof fake.faultCounts]).toBeGreaterThan(0);
    const client: Client = engines.client;
    // A workflow task a loaded server loses comes back after WORKFLOW_TASK_TIMEOUT, for the batch and its chains.
    const taskTimeout = async (h: { describe(): Promise<WorkflowExecutionDescription> }) =>
      Number((await h.describe()).raw.executionConfig?.defaultWorkflowTaskTimeout?.seconds);
    expect(await taskTimeout(batch.handle)).toBe(parseInt(WORKFLOW_TASK_TIMEOUT));
    for await (const wf of client.workflow.list({
      query: `WorkflowType = 'chainWorkflow' AND TaskQueue = '${engines.taskQueue}'`,
    })) {
      const result: ChainResult = await client.workflow.getHandle(wf.workflowId).result();
      if (result.status !== 'accepted')
        expect(result.reason).toMatch(/^(stage \d \(PR #\d\) |the queries could not be written: )/);
      expect(await taskTimeout(client.workflow.getHandle(wf.workflowId))).toBe(parseInt(WORKFLOW_TASK_TIMEOUT));
    }
    console.log(
      `faults: ${fake.requests.length} model calls, ${faults} faults ${JSON.stringify(fake.faultCounts)}; chains ${JSON.stringify(counts)}`,
    );
  } finally {
    await engines.close();
    await fake.stop();
  }
}, 300_000);
