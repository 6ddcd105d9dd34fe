import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { ciWorkflow } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

// pdm's first backend (2020) has no editable hook, and pdm brings the pip of its date, which makes none without a setup.py.
const PYPROJECT = [
  '[build-system]',
  'requires = ["pdm"]',
  'build-backend = "pdm.builders.api"',
  '',
  '[tool.pdm]',
  'name = "tally"',
  'version = "0.1"',
  'description = "Adds."',
  'license = "MIT"',
  'python_requires = ">=3.6"',
  '',
  '[tool.pdm.dependencies]',
  '',
  '[tool.pdm.dev-dependencies]',
  'pytest = ">=5"',
  '',
].join('\n');
const add = (body: string) => `"""Adds."""\n\n\ndef add(a, b):\n    return ${body}\n`;
const testFile = 'from tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n';

/**
 * A project of 2020 on a build backend with no editable install (PEP 660): it is installed as a
 * wheel and imported from the tree, so its PR's change to the code is what its tests see.
 */
testIf(missingPythons(['3.8']))(
  "a project whose build backend has no editable hook is imported from the tree: its PR's fix verifies",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-no-editable-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': PYPROJECT,
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'tally/__init__.py': add('a - b'),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2020-09-01T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add adds', { 'tally/__init__.py': add('a + b'), 'tests/test_add.py': testFile });
    const chain = repo.chain('gen/tally-pdm', [pr]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution!.packages.map((p) => p.name)).toEqual(expect.arrayContaining(['pdm', 'pip']));
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);

const SETUP_PY =
  'from setuptools import setup\n\nsetup(name="tally", version="0.1", packages=["tally"], install_requires=["pypandoc==1.4"])\n';

/**
 * pypandoc 1.4 (2018) names pip among its requirements, which resolve to pip 9 as of its date and
 * replace the venv's own pip: pip 9 knows no --no-build-isolation (there was no build isolation), and
 * the project's install is made without it.
 */
testIf(missingPythons(['3.6']))(
  'a pip of 2018 that a dependency pins installs the project, without the build isolation option it does not know',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-pip9-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'setup.py': SETUP_PY,
        '.github/workflows/tests.yml': ciWorkflow(['3.6']),
        'tally/__init__.py': add('a - b'),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2018-03-07T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add adds', { 'tally/__init__.py': add('a + b'), 'tests/test_add.py': testFile });
    const chain = repo.chain('gen/tally-pip9', [pr]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution!.packages).toContainEqual({ name: 'pip', version: '9.0.1' });
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);

const POETRY_PYPROJECT = [
  '[tool.poetry]',
  'name = "tally"',
  'version = "0.1.0"',
  'description = "Adds."',
  'authors = ["A <a@example.test>"]',
  'packages = [{ include = "tally", from = "src" }]',
  '',
  '[tool.poetry.dependencies]',
  'python = "^3.8"',
  '',
  '[tool.poetry.dev-dependencies]',
  'pytest = "^6"',
  '',
  '[build-system]',
  'requires = ["poetry-core>=1.0.0"]',
  'build-backend = "poetry.core.masonry.api"',
  '',
].join('\n');

/**
 * A Poetry project of 2021 (poetry-core 1.0.3, no editable hook) with a setup.cfg that holds only
 * flake8's settings: pip would install it by `setup.py develop` from that setup.cfg, an empty `UNKNOWN`
 * distribution, and its src-layout package would not import. It is built as a wheel and imported from the tree.
 */
testIf(missingPythons(['3.8']))(
  "a setup.cfg of linters' settings beside a backend with no editable hook does not make the install setuptools'",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-poetry-cfg-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': POETRY_PYPROJECT,
        'setup.cfg': '[flake8]\nmax-line-length = 100\n',
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'src/tally/__init__.py': add('a - b'),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2021-05-01T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add adds', { 'src/tally/__init__.py': add('a + b'), 'tests/test_add.py': testFile });
    const chain = repo.chain('gen/tally-poetry-cfg', [pr]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);
