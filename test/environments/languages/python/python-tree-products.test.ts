import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { addFixChain } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

const PYPROJECT = `[build-system]
requires = ["setuptools>=61", "setuptools_scm>=6.2", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "tally"
dynamic = ["version"]

[tool.setuptools]
packages = ["tally"]

[tool.setuptools_scm]
write_to = "tally/_version.py"
`;

/**
 * A project whose version module setuptools_scm writes into the tree as it installs (`write_to`), ignored by git, as
 * filelock's and many others' are: the sandbox's fresh checkout of the tree lacks it unless the image kept it.
 */
test("a version module the install writes into the tree (setuptools_scm's write_to) is there in every sandbox's checkout", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-tree-products-'));
  const chain = await addFixChain(
    dir,
    'gen/tally-scm-write-to',
    { 'pyproject.toml': PYPROJECT, '.gitignore': 'tally/_version.py\n' },
    new Date('2023-06-10T00:00:00Z'),
    'from tally import add\nfrom tally._version import version\n\n\ndef test_add():\n    assert version and add(2, 1) == 3\n',
  );
  const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
  // Without the kept products: tests-not-runnable, "No module named 'tally._version'" before and after the change.
  expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
    status: 'verified',
    failToPass: ['tests/test_add.py::test_add'],
  });
}, 900_000);
