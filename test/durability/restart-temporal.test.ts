import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../support/ports';
import { ensureNamespace } from '../support/register-namespace';
import { restartDaemon, restartMidRollout } from '../support/restart-run';

const run = promisify(execFile);

/**
 * A Temporal dev server of this file's own (its own port and SQLite file, started by provisioning as
 * the shared one is), so that stopping it mid-rollout disturbs no other test file running beside it.
 */
let env: Record<string, string>;
let pattern: string;

beforeAll(async () => {
  const [port, uiPort] = [await freePort(), await freePort()];
  env = {
    CHAINSMITH_HOME: mkdtempSync(join(tmpdir(), 'chainsmith-temporal-')),
    CHAINSMITH_TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    CHAINSMITH_TEMPORAL_UI_PORT: String(uiPort),
  };
  pattern = `^temporal server start-dev .*--port ${port} `;
  await restartDaemon(pattern, 'temporal', env);
  // Provisioning registers the search attributes in `default`; the suite's workflows run in its own namespace.
  await ensureNamespace(env.CHAINSMITH_TEMPORAL_ADDRESS);
}, 180_000);

afterAll(async () => {
  await run('pkill', ['-TERM', '-f', pattern]).catch(() => undefined);
});

test('restarting the Temporal server (same SQLite file) mid-rollout: the chain still completes with every step exactly once', async () => {
  const { CHAINSMITH_HOME: _home, ...address } = env;
  const restart = () => restartDaemon(pattern, 'temporal', env);
  const result = await restartMidRollout('temporal', restart, address);
  expect([result.result.status, result.result.reason]).toEqual(['accepted', undefined]);
  expect(result.notes).toEqual(result.expected);
}, 300_000);
