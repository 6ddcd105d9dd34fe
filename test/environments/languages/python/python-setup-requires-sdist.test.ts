import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { addFixChain, sdistLinks, tallySetupPy, withFindLinks } from '../../../support/python-project';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

/** A C extension module that compiles on any Python 3: the host's wheel of it fits no other Python, so the image builds the sdist. */
const EXTENSION = `#include <Python.h>
static struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "needs_helper", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_needs_helper(void) { return PyModule_Create(&m); }
`;

/**
 * A dependency of 2015 shaped as cryptography's releases of then: an sdist with a C extension whose setup.py
 * `setup_requires` a dependency published as a wheel (six) and a build-time-only one (`sr-helper`, an sdist), which
 * setuptools fetches itself as the build starts. Offline, with pip 18.1 (Python 3.6's) installing the pins in the
 * order of requirements.txt, neither is there when it asks ("Could not find suitable distribution").
 */
testIf(missingPythons(['3.6']))(
  "a dependency's setup_requires is found offline: the wheels install first, the rest from the dependency directory",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-setup-requires-'));
    await sdistLinks(dir, 'sr-helper-1.0', 'sr-helper-1.0.tar.gz', {
      'setup.py': 'from setuptools import setup\nsetup(name="sr-helper", version="1.0", py_modules=["sr_helper"])\n',
      'sr_helper.py': 'MARK = 7\n',
      'PKG-INFO': 'Metadata-Version: 1.1\nName: sr-helper\nVersion: 1.0\n',
    });
    const links = await sdistLinks(dir, 'needs-helper-1.0', 'needs-helper-1.0.tar.gz', {
      'setup.py':
        'from setuptools import setup, Extension\n' +
        'setup(name="needs-helper", version="1.0", install_requires=["six"], setup_requires=["six", "sr-helper"],\n' +
        '      ext_modules=[Extension("needs_helper", ["needs_helper.c"])])\n',
      'needs_helper.c': EXTENSION,
      'PKG-INFO': 'Metadata-Version: 1.1\nName: needs-helper\nVersion: 1.0\n',
    });
    const chain = await addFixChain(
      dir,
      'gen/tally-setup-requires',
      { 'setup.py': tallySetupPy(), 'requirements.txt': 'needs-helper==1.0\nsix==1.9.0\n' },
      new Date('2015-06-10T00:00:00Z'),
      'import needs_helper\nfrom tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n',
    );
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    const env = await withFindLinks(links, () => environments.forStage(chain, 0));
    const resolution = env.manifest.resolution;
    expect(resolution?.artifacts).toContain('needs-helper-1.0.tar.gz');
    // Without the fetch reading setup.py's setup_requires: sr-helper nowhere in the dependency directory.
    expect(resolution?.artifacts).toContain('sr-helper-1.0.tar.gz');
    // Without the two passes and the easy_install configuration: build-failed, the env above never made.
    expect(await withFindLinks(links, () => goldTestsFor(goldDeps(docker, dir, environments), chain, 0))).toMatchObject(
      {
        status: 'verified',
        failToPass: ['tests/test_add.py::test_add'],
      },
    );
  },
  900_000,
);
