import { editableInstall } from '../../src/environments/languages/python/editable';
import { installPytestPlugins } from '../../src/environments/languages/python/pytest-plugins';
import Docker from 'dockerode';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { readManifest } from '../../src/environments/manifest';
import { recipeFromConfig } from '../../src/environments/recipe';
import { detectRecipe } from '../../src/environments/detect';
import { VENV } from '../../src/environments/languages/python/detect';
import { DockerContainer, CONTAINER_LABEL } from '../../src/container/docker-container';
import { BUILD_LABEL, ENV_IMAGE } from '../../src/environments/builder';
import { setUpStage } from '../../src/stage/setup';
import { testEnvironments } from '../support/environments';
import { pythonChain } from '../support/python-chain';

const docker = new Docker();
/** A repository's files without git: names at the root and their texts. */
const repoFiles = (files: Record<string, string>) => ({
  rootFiles: new Set(Object.keys(files).map((f) => f.split('/')[0])),
  read: async (path: string) => files[path],
});

test('recipes are detected per language from the files at the base; a layout nothing recognises keeps the configured test command', async () => {
  const opts = { defaultTestCommand: 'python3 -m pytest -q' };
  // A package that declares nothing beyond setuptools installs offline: no fetch, no registry.
  const plain = await detectRecipe(
    repoFiles({
      'pyproject.toml': '[build-system]\nrequires = ["setuptools>=61"]\n\n[project]\nname = "x"\n',
      'src/x.py': '',
    }),
    opts,
  );
  expect(plain).toMatchObject({
    language: 'python',
    origin: 'python-package',
    toolchain: { image: 'python', version: '3.11' },
    setup: [
      `python3 -m venv --system-site-packages ${VENV}`,
      installPytestPlugins(`${VENV}/bin/python`),
      ...editableInstall(
        `env -u PIP_NO_CACHE_DIR ${VENV}/bin/python -m pip install --disable-pip-version-check --no-cache-dir --no-index`,
        `${VENV}/bin/python`,
      ),
    ],
    path: [`${VENV}/bin`],
    manifests: ['pyproject.toml'],
    runner: 'pytest',
  });
  expect(plain.fetch).toBeUndefined();
  // sandbox.testCommand is pytest's command for Python projects (flags a user configured keep applying).
  expect(plain.test).toBe('python3 -m pytest -q');
  // So does one whose test extra names only what the base image has (the demo's pytest).
  const demo = await detectRecipe(
    repoFiles({
      'pyproject.toml': '[project]\nname = "tally"\n\n[project.optional-dependencies]\ntest = ["pytest>=7"]\n',
    }),
    opts,
  );
  expect(demo.fetch).toBeUndefined();
  const withDeps = await detectRecipe(
    repoFiles({
      'pyproject.toml':
        '[project]\nname = "x"\n\n[project.optional-dependencies]\ntest = ["pytest>=7", "hypothesis"]\n',
    }),
    opts,
  );
  expect(withDeps.fetch).toBeInstanceOf(Function);
  // Declared dependencies and test requirement files (rather than development ones, which pull in docs
  // and linters) are fetched on the host and installed from the mount.
  const deps = await detectRecipe(
    repoFiles({
      'setup.py': 'setup(install_requires=["markupsafe"])',
      'requirements.txt': 'click\n',
      'requirements-dev.txt': 'sphinx\n',
      'requirements/tests.txt': 'pytest==8.0\n',
    }),
    opts,
  );
  expect(deps.fetch).toBeInstanceOf(Function);
  // From Python 3.8 on, the venv is filled by the uv the fetch left in the mount, offline (python/detect.ts, uvVenv).
  expect(deps.setup[1]).toBe(
    `/deps/uv pip install --python ${VENV}/bin/python --offline --no-index --no-cache --quiet --compile-bytecode --no-deps --find-links /deps -r /deps/requirements.txt`,
  );
  expect(deps.manifests).toEqual(['setup.py', 'requirements.txt', 'requirements/tests.txt']);
  expect((await detectRecipe(repoFiles({ 'requirements-dev.txt': 'pytest\n' }), opts)).manifests).toEqual([
    'requirements-dev.txt',
  ]);

  expect(
    await detectRecipe(repoFiles({ 'package.json': '{"scripts":{"test":"jest"}}', 'package-lock.json': '{}' }), opts),
  ).toMatchObject({
    language: 'node',
    toolchain: { image: 'node' },
    runner: 'node',
    manifests: ['package.json', 'package-lock.json'],
    path: ['/work/node_modules/.bin'],
  });
  expect(
    await detectRecipe(repoFiles({ 'CMakeLists.txt': 'project(x C)', Makefile: 'test:\n\tmake' }), opts),
  ).toMatchObject({ language: 'c', origin: 'c-cmake', runner: 'ctest', toolchain: { image: 'c' } });
  expect(
    await detectRecipe(repoFiles({ Makefile: 'all:\n\tcc x.c\ncheck: all\n\t./t\n', 'x.c': '' }), opts),
  ).toMatchObject({ origin: 'c-make', runner: 'make', env: { CHAINSMITH_MAKE_TARGET: 'check' } });
  expect(await detectRecipe(repoFiles({ 'README.md': '' }), opts)).toMatchObject({
    language: 'unknown',
    origin: 'plain',
    setup: [],
    runner: 'pytest',
    test: 'python3 -m pytest -q',
  });
});

test('a recipe in the config replaces detection for its repository; a bad one is named', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-envcfg-'));
  await writeFile(
    join(dir, 'chainsmith.config.json'),
    JSON.stringify({
      environments: { repos: { 'acme/api': { setup: ['make deps'], test: 'make test', path: ['/work/repo/bin'] } } },
    }),
  );
  const config = loadConfig({ env: { CHAINSMITH_HOME: dir, CHAINSMITH_SANDBOX_CPUS: '2' }, cwd: dir });
  expect(config.environments).toEqual({
    repos: { 'acme/api': { setup: ['make deps'], test: 'make test', path: ['/work/repo/bin'] } },
    buildNetwork: 'none',
    buildTimeoutSeconds: 1200,
    cpus: 2,
    pythons: [],
    goldRuns: 2,
  });
  expect(recipeFromConfig(config.environments.repos['acme/api'], 'pytest')).toMatchObject({
    origin: 'config',
    runner: 'exit-code',
    test: 'make test',
    toolchain: { image: 'python' },
  });
  await writeFile(
    join(dir, 'chainsmith.config.json'),
    JSON.stringify({ environments: { repos: { 'acme/api': { setup: 'make deps' } } } }),
  );
  expect(() => loadConfig({ env: { CHAINSMITH_HOME: dir }, cwd: dir })).toThrow(
    /environments\.repos\.acme\/api\.setup: Invalid input: expected array, received string/,
  );
  expect(() => loadConfig({ env: { CHAINSMITH_HOME: dir, CHAINSMITH_BUILD_NETWORK: 'host' }, cwd: dir })).toThrow(
    /environments\.buildNetwork: .*"host" \(from CHAINSMITH_BUILD_NETWORK\)/,
  );
});

test('one image per repository and resolved set, built once and reused by every stage; the package is installed in it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-env-'));
  const { repo, chain } = await pythonChain(join(dir, 'shapes'), 'env/shapes');
  const environments = testEnvironments(docker);
  const envs = await Promise.all(chain.prs.map((_, stage) => environments.forStage(chain, stage)));
  expect(new Set(envs.map((e) => e.image)).size).toBe(1);
  expect(envs[0]).toMatchObject({
    image: expect.stringMatching(new RegExp(`^${ENV_IMAGE}:[0-9a-f]{16}$`)),
    recipe: { origin: 'python-package' },
    language: 'python',
    runner: 'pytest',
    manifest: {
      language: 'python',
      origin: 'python-package',
      toolchain: { name: 'python', version: expect.stringMatching(/^Python 3\.11\./) },
    },
  });
  expect(envs[0].manifest.resolution).toBeUndefined();
  const info = await docker.getImage(envs[0].image).inspect();
  expect(info.Config.Labels).toMatchObject({ [BUILD_LABEL]: '', 'chainsmith.env.recipe': 'python-package' });
  expect(await readManifest(docker, envs[0].image)).toEqual(envs[0].manifest);
  expect(info.Config.Env).toContain(`PATH=${VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`);

  // Another clone of the same history finds the same image; a version bump changes no dependency, so
  // the image is the same too (sharing.test.ts: a changed dependency builds a new one).
  await repo.checkout(chain.prs[2].mergeSha);
  const bumped = repo.chain('env/shapes', [
    await repo.pr(4, 'Bump the version', {
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shapes"\nversion = "0.2.0"\n',
    }),
    await repo.pr(5, 'Later', { 'NEWS.md': 'v0.2\n' }),
  ]);
  const [at4, at5] = [await environments.forStage(bumped, 0), await environments.forStage(bumped, 1)];
  expect(at4.image).toBe(envs[0].image);
  expect(at5.image).toBe(envs[0].image);

  // In a stage's sandbox the package imports from anywhere, from the stage's own tree, and leaves no trace in git.
  const sandbox = await DockerContainer.create(docker, {
    image: at5.image,
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'environment' },
    memoryMb: 512,
    pidsLimit: 128,
  });
  try {
    await setUpStage(sandbox, chain, 2, { progress: false });
    const r = await sandbox.exec(
      'cd /tmp && python3 -c "import shapes.area as a, inspect; print(a.__file__); print(\'negative\' in inspect.getsource(a.square))" && cd /work/repo && git status --short',
      {
        timeoutSeconds: 30,
        maxOutputChars: 4000,
      },
    );
    expect(r.output).toBe('/work/repo/shapes/area.py\nFalse\n');
  } finally {
    await sandbox.destroy();
  }
  const mine = [envs[0].image, at5.image];
  expect(
    await docker
      .listContainers({ all: true, filters: { label: [CONTAINER_LABEL, BUILD_LABEL] } })
      .then((cs) => cs.filter((c) => mine.includes(c.Labels[BUILD_LABEL]))),
  ).toHaveLength(0);
});
