import { readFile } from 'node:fs/promises';
import { environmentsFrom } from '../../src/environments/from-config';
import { RecipeOverrideSchema } from '../../src/environments/recipe';
import { baseImageTag } from '../../src/environments/images';
import { commitDate } from '../../src/environments/repo-files';
import { validateStages } from '../../src/judge/gold-yield';
import { RecipesFileSchema } from '../../src/setup-agent/recipes-file';
import { FakeOpenAI } from '../support/fake-openai';
import { testSetup } from '../support/setup-agent';
import { ciReadingModel, layoutChain, proposal, REGISTRY_PACKAGE } from '../support/setup-layouts';

let model: FakeOpenAI | undefined;
afterEach(async () => {
  await model?.stop();
  model = undefined;
});

async function scripted(
  script: ConstructorParameters<typeof FakeOpenAI>[0],
  options?: ConstructorParameters<typeof FakeOpenAI>[1],
): Promise<string> {
  model = new FakeOpenAI(script, options);
  return model.start();
}

test('a repository whose tests a project script runs: a wrong recipe, then one that validates, saved and reused without a model call', async () => {
  const chain = await layoutChain('script', `agent-${process.pid}`);
  const setup = await testSetup({ baseUrl: await scripted(ciReadingModel()) });

  const first = await setup.agent.goldTests(chain, 0);
  expect(first).toMatchObject({ status: 'verified', signal: 'exit-code', setup: { outcome: 'rescued', attempts: 2 } });
  // Detection's failure, then the first recipe's: its install needs the network the build has not.
  expect(first.setup!.reasons[0]).toMatch(/^detection: unsupported: no build system chainsmith knows/);
  expect(first.setup!.reasons[1]).toMatch(/^recipe 1: build-failed: .*`apt-get install -y shellcheck`/);
  const calls = model!.requestsBy('setup-agent');
  expect(calls).toHaveLength(4);
  // The agent read the CI file in the container, and was shown the failing command and its output's end.
  expect(JSON.stringify(calls[1].messages)).toContain('- run: sh scripts/run-checks');
  const feedback = calls[2].messages.find((m) => m.role === 'tool' && /^Recipe 1 failed/.test(m.content ?? ''));
  expect(feedback?.content).toMatch(/The failing command: apt-get install -y shellcheck[\s\S]*```\n.+/);
  expect(first.setup).toMatchObject({ requests: 4, completionTokens: 80 });
  expect(first.setup!.promptTokens).toBeGreaterThan(0);

  // The saved file: pretty JSON a user can read and edit, the era spanning the first stage's base.
  const file = first.setup!.recipeFile!;
  const text = await readFile(file, 'utf8');
  expect(text).toContain('\n  "eras": [\n');
  const saved = RecipesFileSchema.parse(JSON.parse(text));
  const base0 = (await commitDate(chain.repo.path, chain.prs[0].baseSha)).toISOString();
  expect(saved.eras).toEqual([
    {
      from: base0,
      to: base0,
      recipe: {
        setup: [],
        test: 'sh scripts/run-checks',
        manifests: ['.ci.yml'],
        language: 'unknown',
        runner: 'exit-code',
        toolchain: 'python',
      },
      origin: 'setup agent, scripted, 2 attempt(s)',
    },
  ]);

  // The second stage, a later base: the saved recipe serves, no model call; the era grows to hold it.
  const second = await setup.agent.goldTests(chain, 1);
  expect(second).toMatchObject({ status: 'verified', setup: { outcome: 'saved-recipe', attempts: 0, requests: 0 } });
  expect(model!.requestsBy('setup-agent')).toHaveLength(4);
  const base1 = (await commitDate(chain.repo.path, chain.prs[1].baseSha)).toISOString();
  expect(RecipesFileSchema.parse(JSON.parse(await readFile(file, 'utf8'))).eras).toMatchObject([
    { from: base0, to: base1 },
  ]);

  // A later run without any model: the environments use the saved recipe directly.
  const later = await testSetup({ dir: setup.dir });
  const again = await later.agent.goldTests(chain, 0);
  expect(again).toMatchObject({
    status: 'verified',
    environment: { origin: 'setup-agent' },
    setup: { outcome: 'saved-recipe' },
  });
  expect(await later.environments.recipeFor(chain, 1)).toMatchObject({
    origin: 'setup-agent',
    test: 'sh scripts/run-checks',
  });
  expect(later.lines.filter((l) => l.startsWith('note:'))).toEqual([]);
});

test('a repository whose tests need a registry package: the proposed recipe names its requirements to resolve, fetched on the host as a configured recipe is', async () => {
  const chain = await layoutChain('pip-packages', `fetch-${process.pid}`);
  const setup = await testSetup({ baseUrl: await scripted(ciReadingModel()) });

  const gold = await setup.agent.goldTests(chain, 0);
  expect(gold).toMatchObject({ status: 'verified', signal: 'exit-code', setup: { outcome: 'rescued', attempts: 2 } });
  // The CI's own install needs the network the build has not; the second recipe resolves the same file on the host.
  expect(gold.setup!.reasons[1]).toMatch(/^recipe 1: build-failed: .*`pip install -r ci\/pip-packages\.txt`/);
  expect(gold.environment!.dependencies).toMatch(
    /^uv [\d.]+; pip [\d.]+, resolved as of \d{4}-\d\d-\d\d, \d+ packages?/,
  );
  const saved = RecipesFileSchema.parse(JSON.parse(await readFile(gold.setup!.recipeFile!, 'utf8')));
  expect(saved.eras[0].recipe).toMatchObject({ resolve: ['ci/pip-packages.txt'], language: 'python' });

  // The same recipe named in the config is built the same way: resolved on the host, the package in the image.
  const configured = await testSetup();
  const env = await environmentsFrom(
    {
      ...configured.config,
      environments: { ...configured.config.environments, repos: { [chain.repo.name]: saved.eras[0].recipe } },
    },
    configured.docker,
    baseImageTag(),
  ).forStage(chain, 0);
  expect(env.recipe.origin).toBe('config');
  expect(env.manifest.resolution).toMatchObject({ ecosystem: 'pypi', lock: 'resolved' });
  expect(env.manifest.resolution!.packages.map((p) => p.name)).toContain(REGISTRY_PACKAGE);
  // A language with no such fetch refuses the field when the config (or a proposal) is read.
  expect(() => RecipeOverrideSchema.parse({ toolchain: 'c', setup: [], resolve: ['deps.txt'] })).toThrow(
    /resolve: c has no host-side fetch for a configured recipe \(only python has\)/,
  );
});

test('the attempts stop at N, every reason kept; without a model a note says what one would add', async () => {
  const chain = await layoutChain('script', `attempts-${process.pid}`);
  let n = 0;
  const url = await scripted((_req, marker) => {
    if (marker?.caller !== 'setup-agent') throw new Error('unexpected caller');
    // A new wrong test command every time: each recipe builds, and its tests do not run.
    return proposal({
      toolchain: 'python',
      language: 'unknown',
      manifests: [],
      setup: [],
      test: `sh scripts/run-tests-${++n}`,
      runner: 'exit-code',
    });
  });
  const setup = await testSetup({ baseUrl: url, attempts: 2 });
  const gold = await setup.agent.goldTests(chain, 0);
  // Detection's record stays (no environment of a recipe that does not work), with every try's reason.
  expect(gold).toMatchObject({ status: 'invalid', reason: { kind: 'unsupported', command: 'sh scripts/run-tests-2' } });
  expect(gold.environment).toBeUndefined();
  expect(gold.setup).toMatchObject({ outcome: 'failed', attempts: 2, requests: 2 });
  expect(gold.setup!.reasons).toHaveLength(3);
  expect(gold.setup!.reasons[1]).toMatch(/^recipe 1: .*sh scripts\/run-tests-1/);
  expect(gold.setup!.reasons[2]).toMatch(/^recipe 2: .*sh scripts\/run-tests-2/);
  expect(gold.reason!.summary).toMatch(
    /^the setup agent found no recipe that validates in 2 attempt\(s\): detection: unsupported/,
  );
  expect(model!.requestsBy('setup-agent')).toHaveLength(2);
  await expect(readFile(gold.setup!.recipeFile!, 'utf8')).rejects.toThrow(/ENOENT/);

  const lines: string[] = [];
  const without = await testSetup({ lines });
  const plain = await without.agent.goldTests(chain, 0);
  expect(plain).toMatchObject({ status: 'invalid', reason: { kind: 'unsupported' } });
  expect(plain.setup).toBeUndefined();
  expect(lines).toEqual([
    expect.stringMatching(
      /^note: gen\/script-attempts-\d+ PR #1: detection's recipe failed; a model endpoint \(model\.baseUrl\) would let the setup agent propose one$/,
    ),
  ]);
});

test('a model outage leaves the run going: each stage is marked as not set up by the agent', async () => {
  const chain = await layoutChain('script', `outage-${process.pid}`);
  const setup = await testSetup({
    baseUrl: await scripted(ciReadingModel(), { faultRate: 1, faults: ['server_error'] }),
  });
  const records = await validateStages(setup.gold, [chain], undefined, {
    goldTests: (c, s) => setup.agent.goldTests(c, s),
  });
  expect(records).toHaveLength(2);
  for (const record of records) {
    expect(record).toMatchObject({
      status: 'invalid',
      reason: { kind: 'unsupported' },
      setup: { outcome: 'model-unavailable', attempts: 0 },
    });
    expect(record.reason!.summary).toMatch(
      /^not set up by the setup agent \(the model is unavailable: the setup agent at http:\/\/127\.0\.0\.1:\d+\/v1\/? answered HTTP 503/,
    );
  }
  // Asked for the first stage (the model layer's two tries), not again for the second.
  expect(model!.requests).toHaveLength(2);
  expect(setup.lines.some((l) => /^warning: .*HTTP 503.*not set up by the setup agent in this run$/.test(l))).toBe(
    true,
  );
});
