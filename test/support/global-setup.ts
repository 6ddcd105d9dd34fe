import { loadConfig } from '../../src/config';
import { TEST_NAMESPACE } from './namespace';
import { ensureNamespace } from './register-namespace';

/** Once per jest run: the suite's own Temporal namespace exists before any test file starts a workflow. */
export default async function globalSetup(): Promise<void> {
  const { address } = loadConfig({ env: { ...process.env, CHAINSMITH_TEMPORAL_NAMESPACE: TEST_NAMESPACE } }).temporal;
  try {
    await ensureNamespace(address);
  } catch (err) {
    // The files that need no Temporal server still run; those that do fail on their own, naming the server.
    console.warn(
      `[global-setup] Temporal namespace ${TEST_NAMESPACE} at ${address} not registered: ${(err as Error).message}`,
    );
  }
}
