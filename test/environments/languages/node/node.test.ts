import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { testEnvironments } from '../../../support/environments';
import { ChainRepo } from '../../../support/chain-repo';

const docker = new Docker();

const PACKAGE = JSON.stringify(
  { name: 'durations', version: '1.0.0', scripts: { test: 'node --test' }, dependencies: { ms: '^2.1.0' } },
  null,
  2,
);
const TEST = (cases: string) =>
  `const test = require('node:test');\nconst assert = require('node:assert');\nconst { seconds } = require('../index.js');\n${cases}`;
const SECONDS_CASE = `test('seconds of a minute', () => assert.strictEqual(seconds('1m'), 60));\n`;
const ROUNDING_CASE = `test('seconds round down', () => assert.strictEqual(seconds('1500ms'), 1));\n`;

test('Node: packages resolved on the host as of the base (npm --before) into an npm cache, installed offline; TAP cases validate', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-node-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'package.json': PACKAGE,
    'index.js': "const ms = require('ms');\nexports.seconds = (text) => ms(text) / 1000;\n",
    'test/seconds.test.js': TEST(SECONDS_CASE),
  });
  const chain = repo.chain('gen/durations', [
    await repo.pr(1, 'Whole seconds', {
      'index.js': "const ms = require('ms');\nexports.seconds = (text) => Math.floor(ms(text) / 1000);\n",
      'test/seconds.test.js': TEST(SECONDS_CASE + ROUNDING_CASE),
    }),
  ]);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  expect(env).toMatchObject({ language: 'node', runner: 'node', recipe: { origin: 'node-npm' } });
  expect(env.manifest.toolchain.version).toMatch(/^node v18\.\d+\.\d+ npm 9\./);
  // The history's commits are dated 2023-01-01: ms as published before then, where the registry's
  // publish times reach back that far (a mirror's may not: then as of now, and the manifest says so).
  const resolution = env.manifest.resolution!;
  expect(resolution).toMatchObject({ ecosystem: 'npm', lock: 'resolved', tool: expect.stringMatching(/^npm \d+\./) });
  expect(resolution.packages).toEqual([{ name: 'ms', version: expect.stringMatching(/^2\.1\.\d+$/) }]);
  if (resolution.asOf) expect(resolution.asOf).toMatch(/^2023-01-01T/);
  else expect(resolution.notes.join('\n')).toMatch(/no versions published before 2023-01-01.*resolved as of the fetch/);

  const store = new ArtifactStore(join(dir, 'artifacts'));
  const gold = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 512, pidsLimit: 256 }, environments },
    chain,
    0,
  );
  expect(gold).toMatchObject({
    status: 'verified',
    runner: 'node',
    signal: 'per-test',
    failToPass: ['seconds round down'],
    passToPass: ['seconds of a minute'],
  });
});

/** npm ci makes no node_modules for a package with nothing to install: the image is built all the same. */
test('Node: a package without dependencies builds its environment and validates', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-node-'));
  const plain = JSON.stringify({ name: 'durations', version: '1.0.0', scripts: { test: 'node --test' } });
  const seconds = (body: string) => `exports.seconds = (ms) => ${body};\n`;
  const cases = (c: string) =>
    TEST(c)
      .replace(/seconds\('1m'\)/, 'seconds(60000)')
      .replace(/seconds\('1500ms'\)/, 'seconds(1500)');
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'package.json': plain,
    'index.js': seconds('ms / 1000'),
    'test/seconds.test.js': cases(SECONDS_CASE),
  });
  const chain = repo.chain('gen/durations-plain', [
    await repo.pr(1, 'Whole seconds', {
      'index.js': seconds('Math.floor(ms / 1000)'),
      'test/seconds.test.js': cases(SECONDS_CASE + ROUNDING_CASE),
    }),
  ]);
  const environments = testEnvironments(docker);
  const store = new ArtifactStore(join(dir, 'artifacts'));
  const gold = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 512, pidsLimit: 256 }, environments },
    chain,
    0,
  );
  expect(gold).toMatchObject({
    status: 'verified',
    failToPass: ['seconds round down'],
    passToPass: ['seconds of a minute'],
  });
});
