import { Client, Connection } from '@temporalio/client';
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { cli as runCli } from '../support/cli';
import { freePort } from '../support/ports';

const root = resolve(__dirname, '../..');
const run = promisify(execFile);

/** The built CLI (npm test builds it) in a fresh folder. */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, env, tmp());

const tmp = () => mkdtempSync(join(tmpdir(), 'chainsmith-cli-'));

describe('bad input gets one clear message, a non-zero exit and nothing half-written', () => {
  test('an invalid config value names the field, the expectation and where it came from', async () => {
    const r = await cli(['status'], { CHAINSMITH_JUDGE_THRESHOLD: '3' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: invalid config: judge\.threshold: .*<=1.*got 3 \(from CHAINSMITH_JUDGE_THRESHOLD\)\n$/,
    );
    expect(() => loadConfig({ env: { CHAINSMITH_MAX_STEPS: 'many' } })).toThrow(
      /agent\.maxSteps: .*expected number.*"many"/,
    );
    // A misspelt key is named where it is, not shown as its whole section; a directory is not a file.
    const file = join(tmp(), 'chainsmith.config.json');
    writeFileSync(file, JSON.stringify({ judge: { thresh: 0.5 }, agent: { maxSteps: 10 } }));
    expect(() => loadConfig({ file, env: {} })).toThrow(
      new RegExp(`^invalid config: judge\\.thresh: not a setting \\(from ${file} or defaults\\)$`),
    );
    const dir = tmp();
    expect(() => loadConfig({ file: dir, env: {} })).toThrow(`config file ${dir} cannot be read: it is a directory`);
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
    const { temporal } = loadConfig();
    const client = new Client({
      connection: await Connection.connect({ address: temporal.address }),
      namespace: temporal.namespace,
    });
    const id = `chain-${name.replace(/[^\w.-]+/g, '-')}-2-4-6-model`;
    await expect(client.workflow.getHandle(id).describe()).rejects.toThrow(/not found/i);
    await client.connection.close();
  });

  test('an unreachable Temporal server', async () => {
    const r = await cli(['status'], { CHAINSMITH_TEMPORAL_ADDRESS: '127.0.0.1:9' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: cannot reach Temporal at 127\.0\.0\.1:9 \(.+\): start a local dev server with .*CHAINSMITH_TEMPORAL_ADDRESS\n$/,
    );
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
    const err = await run(
      'runuser',
      [
        '-u',
        'nobody',
        '--',
        'env',
        'HOME=/tmp',
        'DOCKER_HOST=unix:///tmp/no-docker.sock',
        'bash',
        join(dir, 'scripts/provision.sh'),
        'docker',
      ],
      {
        cwd: dir,
      },
    ).catch((e) => e);
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
    expect(bad.stderr.trim()).toBe(
      `error: ${repos}:3: "colour=blue" is not one of name=, branch=, remote=, clone=, judge-links=`,
    );
    const every = await cli(['schedule', 'create', 'nope', '--repos', repos, '--every', 'daily']);
    expect(every.code).toBe(2);
    expect(every.stderr.trim()).toBe(
      'error: --every wants a number of minutes, hours or days (30m, 6h, 1d), got "daily"',
    );
    // The repos file is read before Temporal is asked: its error is the one heard even with Temporal down.
    const down = await cli(['schedule', 'create', 'nope', '--repos', repos, '--every', '1d'], {
      CHAINSMITH_TEMPORAL_ADDRESS: '127.0.0.1:9',
    });
    expect([down.code, down.stderr]).toEqual([2, bad.stderr]);
    writeFileSync(repos, './clone name=acme/x\n');
    const empty = await cli([
      'schedule',
      'create',
      'nope',
      '--repos',
      repos,
      '--every',
      '1d',
      '--merged-after',
      '2024-06-01',
      '--merged-before',
      '2024-01-01',
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /^error: --merged-after 2024-06-01\S* is not before --merged-before 2024-01-01\S*: no PR can be merged in between\n$/,
    );
    const missing = await cli(['schedule', 'describe', `no-such-schedule-${Date.now()}`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(
      /^error: no schedule no-such-schedule-\d+: `chainsmith schedule list` shows the ones there are$/,
    );
  });
});

/** One line on stderr, `error: ` and then what matches. */
const oneErrorLine = (stderr: string, what: RegExp) => {
  expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(stderr).toMatch(new RegExp(`^error: ${what.source}`));
};

test("the command line's own mistakes (an unknown option or command, a missing argument, a bad choice, no command) are one line and exit 2, not the help", async () => {
  const cases: [string[], RegExp][] = [
    [[], /a command is needed: --help lists them/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['status', '--bogus'], /unknown option '--bogus'/],
    [['pause'], /missing required argument 'workflowId'/],
    [['mine', '--repo', '.'], /required option '--out <file>' not specified/],
    [
      ['start', '--chains', 'x', '--policy', 'foo'],
      /option '--policy <policy>' argument 'foo' is invalid\. Allowed choices are model, gold-replay\./,
    ],
    [['schedule'], /a command is needed/],
  ];
  for (const [args, what] of cases) {
    const r = await cli(args);
    expect([args, r.code, r.stdout]).toEqual([args, 2, '']);
    oneErrorLine(r.stderr, what);
  }
  const help = await cli(['mine', '--help']);
  expect([help.code, help.stderr]).toEqual([0, '']);
  expect(help.stdout).toContain('--merged-after <date>');
});

test('mine: a GitHub URL that is not one, a cache that is a file, a name with spaces, an empty number', async () => {
  const dir = tmp();
  const out = join(dir, 'chains.jsonl');
  const file = join(dir, 'a-file');
  writeFileSync(file, 'x');
  const cases: [string[], RegExp][] = [
    [['--github', 'a/b', '--github-url', 'notaurl'], /--github-url wants an http\(s\) URL, got "notaurl"/],
    [
      ['--github', 'a/b', '--github-url', 'http://127.0.0.1:9', '--cache-dir', file],
      /the GitHub cache .*a-file is not a directory/,
    ],
    [
      ['--repo', dir, '--name', 'not a name'],
      /--name wants owner\/name \(or a name\) without spaces or '#', got "not a name"/,
    ],
    [['--repo', dir, '--blame-days', ''], /--blame-days must be a whole number, got ""/],
  ];
  for (const [args, what] of cases) {
    const r = await cli(['mine', ...args, '--out', out], { CHAINSMITH_HOME: dir });
    expect([args, r.code]).toEqual([args, 2]);
    oneErrorLine(r.stderr, what);
  }
  expect(existsSync(out)).toBe(false);
});

test('export: a visibility query Temporal refuses is the input error it is', async () => {
  const r = await cli(['export', '--query', 'this is not (a query', '--out', join(tmp(), 'export')]);
  expect(r.code).toBe(2);
  oneErrorLine(r.stderr, /--query "this is not \(a query" is not a query Temporal accepts: invalid query: /);
});

test('status of a chain or batch that does not exist is one line and exit 2, not a stack trace', async () => {
  for (const id of [`chain-no-such-thing-${Date.now()}`, `batch-no-such-thing-${Date.now()}`]) {
    const r = await cli(['status', id]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`error: no chain or batch with id ${id} (\`chainsmith status\` lists them)`);
  }
});
