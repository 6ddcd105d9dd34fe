import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../../../src/git';
import { setupRequires } from '../../../../src/environments/languages/python/setup-requires';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { ciWorkflow } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

// The version comes from git (the last tag): a tree without a repository has none, and setup.py fails.
const SETUP_PY =
  'from setuptools import setup\n\nsetup(name="tally", use_scm_version=True, setup_requires=["setuptools_scm"], packages=["tally"])\n';
const add = (body: string) => `"""Adds."""\n\n\ndef add(a, b):\n    return ${body}\n`;
const testFile = 'from tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n';

/**
 * A setup.py whose version setuptools_scm reads from git: the host resolves it from a checkout that
 * is a repository with the clone's tags, as the environment's is, so its requirements resolve and
 * its PR's fix verifies.
 */
testIf(missingPythons(['3.8']))(
  'a project that takes its version from git tags resolves on the host, and its PR verifies',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-scm-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'setup.py': SETUP_PY,
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'tally/__init__.py': add('a - b'),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2021-06-01T00:00:00Z'),
    );
    await git(repo.path, ['tag', 'v1.2.0']);
    const pr = await repo.pr(1, 'Add adds', { 'tally/__init__.py': add('a + b'), 'tests/test_add.py': testFile });
    const chain = repo.chain('gen/tally-scm', [pr]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution!.packages.map((p) => p.name)).toEqual(expect.arrayContaining(['pytest']));
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);

test("setup_requires is read from setup.py's literal list and setup.cfg's [options], where projects write it", () => {
  expect(setupRequires('setup(\n    setup_requires=[\'pbr>=1.8\', "setuptools_scm[toml]>=3.4,<8"],\n)', '')).toEqual([
    'pbr>=1.8',
    'setuptools_scm[toml]>=3.4,<8',
  ]);
  const cfg =
    '[metadata]\nname = x\n\n[options]\nsetup_requires =\n    setuptools_scm>=3.4,<8\n    cffi ; # the bindings\ninstall_requires = six\n';
  expect(setupRequires('setup(setup_requires=SETUP_REQUIRES)', cfg)).toEqual(['setuptools_scm>=3.4,<8', 'cffi']);
  expect(setupRequires('', '[options]\nsetup_requires = pbr; wheel\n')).toEqual(['pbr', 'wheel']);
  expect(setupRequires("setup(name='x')", '[tool:pytest]\nsetup_requires = pytest\n')).toEqual([]);
});
