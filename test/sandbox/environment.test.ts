import Docker from 'dockerode';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { detectRecipe, VENV } from '../../src/sandbox/detect-recipe';
import { DockerSandbox, SANDBOX_LABEL } from '../../src/sandbox/docker-sandbox';
import { BUILD_LABEL, ENV_IMAGE } from '../../src/sandbox/environment';
import { setUpStage } from '../../src/sandbox/stage-setup';
import { testEnvironments } from '../../src/testing/environments';
import { pythonChain } from '../../src/testing/python-chain';

const docker = new Docker();
const layout = (...files: string[]) => ({ rootFiles: new Set(files) });

test('recipes are detected for common Python and Node layouts, offline or with a network', () => {
  const offline = { online: false };
  expect(detectRecipe(layout('pyproject.toml', 'src', 'tests'), offline)).toEqual({
    origin: 'python-package',
    setup: [`python3 -m venv --system-site-packages ${VENV}`, `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check --no-index --no-build-isolation --no-deps -e .`],
    path: [`${VENV}/bin`],
    manifests: ['pyproject.toml'],
  });
  const online = detectRecipe(layout('setup.py', 'requirements.txt', 'requirements-dev.txt'), { online: true });
  expect(online.setup.slice(1)).toEqual([
    `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'`,
    `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt`,
    `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt`,
  ]);
  expect(online.manifests).toEqual(['setup.py', 'requirements-dev.txt', 'requirements.txt']);
  expect(detectRecipe(layout('requirements.txt', 'app.py'), offline)).toMatchObject({ origin: 'python-plain', setup: [`python3 -m venv --system-site-packages ${VENV}`] });
  expect(detectRecipe({ rootFiles: new Set(['package.json', 'package-lock.json']), packageJson: '{"scripts":{"test":"jest"}}' }, offline)).toEqual({
    origin: 'node-npm',
    setup: ['npm ci --no-audit --no-fund --offline', 'mv node_modules /work/node_modules'],
    test: 'npm test --silent',
    path: ['/work/node_modules/.bin'],
    manifests: ['package.json', 'package-lock.json'],
  });
  expect(detectRecipe({ rootFiles: new Set(['package.json', 'yarn.lock']), packageJson: '{}' }, { online: true })).toMatchObject({
    origin: 'node-yarn',
    setup: ['yarn install --frozen-lockfile', 'mv node_modules /work/node_modules'],
    manifests: ['package.json', 'yarn.lock'],
  });
  expect(detectRecipe({ rootFiles: new Set(['package.json', 'pnpm-lock.yaml']), packageJson: 'not json' }, offline).test).toBeUndefined();
  expect(detectRecipe(layout('Makefile', 'main.c'), offline)).toEqual({ origin: 'plain', setup: [], path: [], manifests: [] });
});

test('a recipe in the config replaces detection for its repository; a bad one is named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-envcfg-'));
  await writeFile(join(dir, 'chainsmith.config.json'), JSON.stringify({ environments: { repos: { 'acme/api': { setup: ['make deps'], test: 'make test', path: ['/work/repo/bin'] } } } }));
  const config = loadConfig({ env: { CHAINSMITH_HOME: dir, CHAINSMITH_SANDBOX_CPUS: '2' }, cwd: dir });
  expect(config.environments).toEqual({ repos: { 'acme/api': { setup: ['make deps'], test: 'make test', path: ['/work/repo/bin'] } }, buildNetwork: 'none', buildTimeoutSeconds: 1200, cpus: 2 });
  await writeFile(join(dir, 'chainsmith.config.json'), JSON.stringify({ environments: { repos: { 'acme/api': { setup: 'make deps' } } } }));
  expect(() => loadConfig({ env: { CHAINSMITH_HOME: dir }, cwd: dir })).toThrow(/environments\.repos\.acme\/api\.setup: Invalid input: expected array, received string/);
  expect(() => loadConfig({ env: { CHAINSMITH_HOME: dir, CHAINSMITH_BUILD_NETWORK: 'host' }, cwd: dir })).toThrow(/environments\.buildNetwork: .*"host" \(from CHAINSMITH_BUILD_NETWORK\)/);
});

test('one image per repository and dependency manifests, built once and reused by every stage; the package is installed in it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-env-'));
  const { repo, chain } = await pythonChain(join(dir, 'shapes'), 'env/shapes');
  const environments = testEnvironments(docker);
  const envs = await Promise.all(chain.prs.map((_, stage) => environments.forStage(chain, stage)));
  expect(new Set(envs.map((e) => e.image)).size).toBe(1);
  expect(envs[0]).toMatchObject({ image: expect.stringMatching(new RegExp(`^${ENV_IMAGE}:[0-9a-f]{16}$`)), recipe: { origin: 'python-package' }, testCommand: 'python3 -m pytest -q -p no:cacheprovider' });
  const info = await docker.getImage(envs[0].image).inspect();
  expect(info.Config.Labels).toMatchObject({ [BUILD_LABEL]: '', 'chainsmith.env.recipe': 'python-package' });
  expect(info.Config.Env).toContain(`PATH=${VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`);

  // Another clone of the same history finds the same image; a changed dependency manifest builds a new one.
  await repo.checkout(chain.prs[2].mergeSha);
  const bumped = repo.chain('env/shapes', [await repo.pr(4, 'Bump the version', { 'pyproject.toml': '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shapes"\nversion = "0.2.0"\n' }), await repo.pr(5, 'Later', { 'NEWS.md': 'v0.2\n' })]);
  const [at4, at5] = [await environments.forStage(bumped, 0), await environments.forStage(bumped, 1)];
  expect(at4.image).toBe(envs[0].image);
  expect(at5.image).not.toBe(envs[0].image);

  // In a stage's sandbox the package imports from anywhere, from the stage's own tree, and leaves no trace in git.
  const sandbox = await DockerSandbox.create(docker, { image: at5.image, mirrorPath: repo.path, labels: { 'chainsmith.test': 'environment' }, memoryMb: 512, pidsLimit: 128 });
  try {
    await setUpStage(sandbox, chain, 2, { progress: false });
    const r = await sandbox.exec('cd /tmp && python3 -c "import shapes.area as a, inspect; print(a.__file__); print(\'negative\' in inspect.getsource(a.square))" && cd /work/repo && git status --short', {
      timeoutSeconds: 30,
      maxOutputChars: 4000,
    });
    expect(r.output).toBe('/work/repo/shapes/area.py\nFalse\n');
  } finally {
    await sandbox.destroy();
  }
  const mine = [envs[0].image, at5.image];
  expect(await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, BUILD_LABEL] } }).then((cs) => cs.filter((c) => mine.includes(c.Labels[BUILD_LABEL])))).toHaveLength(0);
});
