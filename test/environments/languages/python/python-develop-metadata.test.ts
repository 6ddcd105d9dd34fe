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

const SETUP_CFG =
  '[metadata]\nname = tally\nversion = 1.2\n\n[options]\npackage_dir = =src\npackages = find:\ninstall_requires = six\n\n[options.packages.find]\nwhere = src\n';
// The package reads its own version from its installed metadata, as many did (pkg_resources, importlib.metadata).
const init = (body: string) =>
  `"""Adds."""\nfrom importlib.metadata import version\n\n__version__ = version("tally")\n\n\ndef add(a, b):\n    return ${body}\n`;
const testFile =
  'from tally import __version__, add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n    assert __version__ == "1.2"\n';

/**
 * Before setuptools 64 an editable install is `setup.py develop`: the project's metadata (its
 * egg-info) is written into the tree, which the image's build keeps in memory and every sandbox
 * checks out anew. Without it, a package that reads its own version fails at import in every test run.
 */
testIf(missingPythons(['3.8']))(
  "a project installed by setup.py develop (setuptools before 64) finds its own metadata in the sandbox: its PR's fix verifies",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-develop-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'setup.py': 'from setuptools import setup\n\nsetup()\n',
        'setup.cfg': SETUP_CFG,
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'src/tally/__init__.py': init('a - b'),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2020-09-01T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add adds', {
      'src/tally/__init__.py': init('a + b'),
      'tests/test_add.py': testFile,
    });
    const chain = repo.chain('gen/tally-develop', [pr]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await environments.forStage(chain, 0);
    const setuptools = env.manifest.resolution!.packages.find((p) => p.name === 'setuptools');
    expect(Number(setuptools?.version.split('.')[0])).toBeLessThan(64);
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);
