import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { addFixChain, tallySetupPy } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

const testFile = 'from tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n';

/**
 * A project of 2014 runs on the oldest Python here, 3.6 (December 2016). The setuptools of its own date
 * does not import on a Python that came out after it (pkg_resources of 2014 looks for
 * importlib._bootstrap.SourceFileLoader, which 3.6 no longer has), so the project's install failed and
 * so did every stage of the era: the build tooling is resolved as of no earlier than the Python's release.
 */
testIf(missingPythons(['3.6']))(
  "a project older than its Python installs with setuptools of that Python's release, not of the project's date: its PR's fix verifies",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-era-setuptools-'));
    const chain = await addFixChain(
      dir,
      'gen/tally-era-setuptools',
      { 'setup.py': tallySetupPy(['six']) },
      new Date('2014-11-19T00:00:00Z'),
      testFile,
    );
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.toolchain).toMatchObject({ version: expect.stringMatching(/^Python 3\.6\./) });
    const setuptools = env.manifest.resolution!.packages.find((p) => p.name === 'setuptools');
    expect(Number(setuptools?.version.split('.')[0])).toBeGreaterThanOrEqual(32);
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);
