import { Client, Connection } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { freePort } from '../support/ports';

const root = resolve(__dirname, '../..');
const run = promisify(execFile);

/** Runs the built CLI (npm test builds it) and returns its exit code and output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const r = await run('node', [join(root, 'bin/chainsmith.js'), ...args], { env: { ...process.env, ...env }, cwd: tmp() });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const tmp = () => mkdtempSync(join(tmpdir(), 'chainsmith-cli-'));

describe('bad input gets one clear message, a non-zero exit and nothing half-written', () => {
  test('an invalid config value names the field, the expectation and where it came from', async () => {
    const r = await cli(['status'], { CHAINSMITH_JUDGE_THRESHOLD: '3' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: invalid config:\n\s+judge\.threshold: .*<=1.*got 3 \(from CHAINSMITH_JUDGE_THRESHOLD\)/);
    expect(() => loadConfig({ env: { CHAINSMITH_MAX_STEPS: 'many' } })).toThrow(/agent\.maxSteps: .*expected number.*"many"/);
  });

  test('a path that is not a git repository', async () => {
    const dir = tmp();
    const out = join(dir, 'chains.jsonl');
    const r = await cli(['mine', '--repo', dir, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: not a git repository: ${dir}`);
    expect(existsSync(out)).toBe(false);
  });

  test('an unreachable model endpoint stops `start` before any workflow exists', async () => {
    const dir = tmp();
    const repo = await generateDemoRepo(join(dir, 'tally'));
    const name = `badinput-${Date.now()}/tally`;
    const chains = join(dir, 'chains.jsonl');
    expect((await cli(['mine', '--repo', repo.path, '--name', name, '--out', chains])).code).toBe(0);
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    const r = await cli(['start', '--chains', chains], { OPENAI_BASE_URL: url, CHAINSMITH_HOME: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the model endpoint ${url} is unreachable (ECONNREFUSED)`);
    const client = new Client({ connection: await Connection.connect({ address: loadConfig().temporal.address }) });
    const id = `chain-${name.replace(/[^\w.-]+/g, '-')}-2-4-6-model`;
    await expect(client.workflow.getHandle(id).describe()).rejects.toThrow(/not found/i);
    await client.connection.close();
  });

  test('an unreachable Temporal server', async () => {
    const r = await cli(['status'], { CHAINSMITH_TEMPORAL_ADDRESS: '127.0.0.1:9' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: cannot reach Temporal at 127.0.0.1:9');
  });

  test('a malformed chains file names the line', async () => {
    const file = join(tmp(), 'chains.jsonl');
    writeFileSync(file, '{"id": "x"}\n');
    const r = await cli(['start', '--chains', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/chains\.jsonl:1: not a chain: repo: /);
  });

  const asRoot = process.getuid?.() === 0 ? test : test.skip;
  asRoot('no Docker engine and not root: provisioning says what to do', async () => {
    // A copy `nobody` can read: the clone itself may sit in a directory only root can enter.
    const dir = tmp();
    mkdirSync(join(dir, 'scripts'));
    copyFileSync(join(root, 'scripts/provision.sh'), join(dir, 'scripts/provision.sh'));
    for (const d of [dir, join(dir, 'scripts')]) chmodSync(d, 0o755);
    const err = await run('runuser', ['-u', 'nobody', '--', 'env', 'HOME=/tmp', 'DOCKER_HOST=unix:///tmp/no-docker.sock', 'bash', join(dir, 'scripts/provision.sh'), 'docker'], {
      cwd: dir,
    }).catch((e) => e);
    expect(err.code).toBe(1);
    expect(err.stderr).toMatch(/error: no Docker engine is reachable/);
  });
});

describe('schedule: bad input is refused before anything is created', () => {
  test('a repos file line with an unknown field, an interval that is not one, a schedule that does not exist', async () => {
    const dir = tmp();
    const repos = join(dir, 'repos.txt');
    writeFileSync(repos, '# ok\n./clone name=acme/x\n./other colour=blue\n');
    const bad = await cli(['schedule', 'create', 'nope', '--repos', repos, '--every', '1d']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(`error: ${repos}:3: "colour=blue" is not one of name=, branch=, remote=, clone=`);
    const every = await cli(['schedule', 'create', 'nope', '--repos', repos, '--every', 'daily']);
    expect(every.code).toBe(2);
    expect(every.stderr.trim()).toBe('error: --every wants a number of minutes, hours or days (30m, 6h, 1d), got "daily"');
    const missing = await cli(['schedule', 'describe', `no-such-schedule-${Date.now()}`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^error: no schedule no-such-schedule-\d+: `chainsmith schedule list` shows the ones there are$/);
  });
});

test('status of a chain or batch that does not exist is one line and exit 2, not a stack trace', async () => {
  for (const id of [`chain-no-such-thing-${Date.now()}`, `batch-no-such-thing-${Date.now()}`]) {
    const r = await cli(['status', id]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: no chain or batch with id ${id} (\`chainsmith status\` lists them)`);
  }
});
