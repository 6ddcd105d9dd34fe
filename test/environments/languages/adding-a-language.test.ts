import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageSupport, TestRunner } from '../../../src/environments/contract';
import type * as Registry from '../../../src/environments/languages/registry';
import { shellQuote } from '../../../src/process/shell-quote';

/**
 * A sixth language is one LanguageSupport object and one entry in the registry's list, and nothing
 * else. "Tiny" is defined here, whole: a project with a tiny.toml at its root whose tests are shell
 * scripts named *.t.sh, each one test that passes when it exits 0. The registry is rebuilt from the
 * real list plus Tiny by the same registryOf that languages/index.ts applies to its list (the one line a
 * real language adds there), and everything after that is the real code: detection, the config's
 * recipe schema, the miner's file kinds, an environment built in Docker, the agent's description of it
 * and a gold validation that runs Tiny's tests at the base and at the merge. A list of languages,
 * runners, toolchains or test patterns kept anywhere but the registry leaves Tiny out, and this fails.
 */
const tinyRunner: TestRunner<'tiny-tap'> = {
  name: 'tiny-tap',
  command: (files, override) => {
    const scripts = files.filter((f) => f.endsWith('.t.sh'));
    const list = scripts.length ? scripts.map(shellQuote).join(' ') : 't/*.t.sh';
    return (
      override ??
      `ok=0; for f in ${list}; do if sh "$f" >/dev/null 2>&1; then echo "tiny pass $f"; else echo "tiny fail $f"; ok=1; fi; done; exit $ok`
    );
  },
  parse: (output) => {
    const cases = [...output.matchAll(/^tiny (pass|fail) (\S+)$/gm)].map((m) => ({
      id: m[2],
      outcome: m[1] === 'pass' ? ('passed' as const) : ('failed' as const),
    }));
    return cases.length ? cases : undefined;
  },
};

const tiny: LanguageSupport<'tiny', 'tiny-tap', 'tiny-sh'> = {
  name: 'tiny',
  title: 'Tiny Shell',
  layouts: ['tiny.toml'],
  detect: async (files) =>
    files.rootFiles.has('tiny.toml')
      ? {
          language: 'tiny',
          origin: 'tiny-sh',
          // No images/toolchains/tiny-sh: the toolchain is the base image, which has a shell.
          toolchain: { image: 'tiny-sh' },
          manifests: ['tiny.toml'],
          setup: ['test -f tiny.toml'],
          env: {},
          path: [],
          runner: 'tiny-tap',
        }
      : undefined,
  runners: { 'tiny-tap': tinyRunner },
  toolchains: { 'tiny-sh': 'echo "tiny on $(readlink -f /bin/sh)"' },
  files: { tests: [/\.t\.sh$/], code: ['tiny'] },
};

const REGISTRY = require.resolve('../../../src/environments/languages');
// Every module that imports the registry gets the one built with Tiny (loaded below, after this).
jest.doMock(REGISTRY, () => {
  const { registryOf } = jest.requireActual<typeof Registry>('../../../src/environments/languages/registry');
  return registryOf([...jest.requireActual<{ LANGUAGES: LanguageSupport[] }>(REGISTRY).LANGUAGES, tiny]);
});

// Loaded after the registry is rebuilt.
const { detectRecipe } =
  require('../../../src/environments/detect') as typeof import('../../../src/environments/detect');
const { RecipeOverrideSchema } =
  require('../../../src/environments/recipe') as typeof import('../../../src/environments/recipe');
const { fileKind } = require('../../../src/mining/file-kind') as typeof import('../../../src/mining/file-kind');
const { describeEnvironment } =
  require('../../../src/environments/describe') as typeof import('../../../src/environments/describe');
const { goldTestsFor } =
  require('../../../src/judge/gold-validation') as typeof import('../../../src/judge/gold-validation');
const { ArtifactStore } = require('../../../src/artifacts/store') as typeof import('../../../src/artifacts/store');
const { testEnvironments } = require('../../support/environments') as typeof import('../../support/environments');
const { ChainRepo } = require('../../support/chain-repo') as typeof import('../../support/chain-repo');

const docker = new Docker();
const CALC = 'add() { echo $(( $1 + $2 )); }\n';
const SUB = 'sub() { echo $(( $1 - $2 )); }\n';
const ADD_TEST = '. ./lib/calc.tiny\n[ "$(add 2 3)" = 5 ]\n';
const SUB_TEST = '. ./lib/calc.tiny\n[ "$(sub 5 3)" = 2 ]\n';

test('a language defined in one object and added to the registry is detected, accepted by the config, classified and built', async () => {
  const files = (names: Record<string, string>) => ({
    rootFiles: new Set(Object.keys(names)),
    read: async (path: string) => names[path],
  });
  // Detection tries every language of the list, Tiny last.
  expect(await detectRecipe(files({ 'tiny.toml': '' }), { defaultTestCommand: 'true' })).toMatchObject({
    language: 'tiny',
    runner: 'tiny-tap',
    toolchain: { image: 'tiny-sh' },
  });
  // The languages before it still win where their layout is there.
  expect(
    await detectRecipe(files({ 'tiny.toml': '', 'go.mod': 'module x\n\ngo 1.19\n' }), { defaultTestCommand: 'true' }),
  ).toMatchObject({ language: 'go' });
  // A repository none of them knows is told what they look for, Tiny's file included.
  await expect(
    detectRecipe(files({ Gemfile: '' }), { defaultTestCommand: 'python3 -m pytest', testFiles: ['spec/x_spec.rb'] }),
  ).rejects.toThrow(/it looks for Cargo\.toml, .*Makefile, tiny\.toml\)/);
  // A configured recipe may name its language, runner and toolchain.
  expect(
    RecipeOverrideSchema.safeParse({ setup: [], language: 'tiny', runner: 'tiny-tap', toolchain: 'tiny-sh' }).success,
  ).toBe(true);
  expect(RecipeOverrideSchema.safeParse({ setup: [], language: 'cobol' }).success).toBe(false);
  // The miner tells its tests and its code apart.
  expect([fileKind('t/sub.t.sh'), fileKind('lib/calc.tiny'), fileKind('lib/calc.cbl')]).toEqual([
    'test',
    'code',
    'other',
  ]);
});

test('a Tiny project gets an environment in Docker, and its PR is validated by running its tests before and after', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-tiny-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'tiny.toml': 'name = "calc"\n',
    'lib/calc.tiny': CALC,
    't/add.t.sh': ADD_TEST,
  });
  const chain = repo.chain('gen/calc', [
    await repo.pr(1, 'Subtraction', {
      'lib/calc.tiny': CALC + SUB,
      't/add.t.sh': `${ADD_TEST}[ "$(add 0 0)" = 0 ]\n`,
      't/sub.t.sh': SUB_TEST,
    }),
  ]);
  expect(
    chain.prs[0].files
      .filter((f) => f.kind === 'test')
      .map((f) => f.path)
      .sort(),
  ).toEqual(['t/add.t.sh', 't/sub.t.sh']);

  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  expect(env).toMatchObject({ language: 'tiny', runner: 'tiny-tap', recipe: { origin: 'tiny-sh' } });
  // The toolchain's probe ran in the built image.
  expect(env.manifest.toolchain).toMatchObject({ name: 'tiny-sh', version: expect.stringMatching(/^tiny on \//) });
  expect(describeEnvironment(env)).toMatch(
    /^The environment has a Tiny Shell toolchain \(tiny on \/.*\).*`ok=0; for f in t\/\*\.t\.sh;/,
  );

  const store = new ArtifactStore(join(dir, 'artifacts'));
  const gold = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 256, pidsLimit: 128 }, environments },
    chain,
    0,
  );
  expect(gold).toMatchObject({
    status: 'verified',
    runner: 'tiny-tap',
    signal: 'per-test',
    failToPass: ['t/sub.t.sh'],
    passToPass: ['t/add.t.sh'],
  });
});
