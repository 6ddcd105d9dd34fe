import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');

/** Compose v2 (`docker compose`) where the Docker CLI has it, else Debian's v1 (`docker-compose`, installed by provisioning). */
async function compose(): Promise<string[]> {
  if (
    await run('docker', ['compose', 'version']).then(
      () => true,
      () => false,
    )
  )
    return ['docker', 'compose'];
  if (
    await run('docker-compose', ['version']).then(
      () => true,
      () => false,
    )
  )
    return ['docker-compose'];
  throw new Error('neither `docker compose` nor `docker-compose` is installed: run scripts/provision.sh compose');
}

async function config(args: string[], env: Record<string, string> = {}): Promise<string> {
  const [cmd, ...pre] = await compose();
  const { stdout } = await run(cmd, [...pre, '-f', resolve(root, 'docker-compose.yml'), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return stdout;
}

test('docker-compose.yml is a valid compose file: the single-host stack, and the extra-host sandbox worker behind its profile', async () => {
  // `config` validates against the compose schema and exits non-zero on any error.
  await config(['config', '-q']);
  const services = (await config(['--profile', 'extra-host', 'config', '--services'])).trim().split('\n');
  expect(services).toEqual(
    expect.arrayContaining([
      'postgresql',
      'temporal',
      'search-attributes',
      'temporal-ui',
      'sandbox-image',
      'worker',
      'sandbox-worker',
    ]),
  );
});

test('an extra host gets its own identity, the cluster address and the shared bucket from its environment', async () => {
  const out = await config(['--profile', 'extra-host', 'config'], {
    CHAINSMITH_HOST: 'gpu-box-2',
    CHAINSMITH_TEMPORAL_ADDRESS: 'temporal.internal:7233',
    CHAINSMITH_S3_BUCKET: 'team-artifacts',
  });
  // The service's block: from its key to the next key at the same indentation.
  const lines = out.split('\n');
  const start = lines.indexOf('  sandbox-worker:');
  expect(start).toBeGreaterThan(0);
  const end = lines.findIndex((l, i) => i > start && /^ {0,2}\S/.test(l));
  const extra = lines.slice(start, end < 0 ? undefined : end).join('\n');
  expect(extra).toMatch(/CHAINSMITH_HOST: gpu-box-2/);
  expect(extra).toMatch(/CHAINSMITH_TEMPORAL_ADDRESS: temporal\.internal:7233/);
  expect(extra).toMatch(/CHAINSMITH_S3_BUCKET: team-artifacts/);
  expect(extra).toMatch(/--sandbox-only/);
});
