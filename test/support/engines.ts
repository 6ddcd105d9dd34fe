// Workers log every state change at INFO: quieted before any is made, in each file that makes one.
import './quiet-sdk';
import { NativeConnection, type Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { Client, Connection } from '@temporalio/client';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config';
import { buildDeps } from '../../src/workers/deps';
import { createWorkers } from '../../src/workers/worker';
import { cachedWorkflowBundle } from '../../src/workers/workflow-bundle';

/**
 * The real engines the suite runs on: the Temporal dev server and Docker engine that
 * scripts/provision.sh started (npm test runs it first).
 */
export function testConfig(env: Record<string, string> = {}): Config {
  const home = mkdtempSync(join(tmpdir(), 'chainsmith-test-'));
  // The suite's own Temporal namespace (test-env.ts), unless `env` names another.
  const namespace = process.env.CHAINSMITH_TEMPORAL_NAMESPACE;
  return loadConfig({
    env: { ...(namespace ? { CHAINSMITH_TEMPORAL_NAMESPACE: namespace } : {}), CHAINSMITH_HOME: home, ...env },
    cwd: home,
  });
}

/** src/workflows bundled once per version of its code, for every test file and worker (each has its own data directory). */
export function workflowBundle(): Promise<WorkflowBundleOption> {
  return cachedWorkflowBundle(require.resolve('../../src/workflows'));
}

export interface Engines {
  client: Client;
  workers: Worker[];
  taskQueue: string;
  close(): Promise<void>;
}

export async function startEngines(config: Config, opts: { maxSandboxes?: number } = {}): Promise<Engines> {
  const taskQueue = `test-${process.pid}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const connection = await Connection.connect({ address: config.temporal.address });
  const nativeConnection = await NativeConnection.connect({ address: config.temporal.address });
  const deps = buildDeps(config);
  const workers = await createWorkers({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    deps,
    taskQueue,
    workflowBundle: await workflowBundle(),
    maxSandboxes: opts.maxSandboxes,
  });
  return {
    client: new Client({ connection, namespace: config.temporal.namespace }),
    workers,
    taskQueue,
    async close() {
      // As a worker's shutdown does: its warm sandboxes go with it.
      await deps.pool?.drain();
      await connection.close();
      await nativeConnection.close();
    },
  };
}
