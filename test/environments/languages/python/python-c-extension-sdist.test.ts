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

/**
 * A project of 2015 whose tests use cffi, which had no wheel for Linux then: its sdist compiles in the
 * image against libffi's headers (`#include <ffi.h>`), which the Python image holds beside the compiler.
 */
testIf(missingPythons(['3.6']))(
  "a dependency of the era before manylinux wheels builds its C extension against a common library's headers",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-c-extension-'));
    const testFile =
      'import cffi\nfrom tally import add\n\n\ndef test_add():\n    assert add(2, 1) == int(cffi.FFI().cast("int", 3))\n';
    const chain = await addFixChain(
      dir,
      'gen/tally-cffi-sdist',
      { 'setup.py': tallySetupPy(), 'requirements.txt': 'cffi==0.9.2\n' },
      new Date('2015-06-10T00:00:00Z'),
      testFile,
    );
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    // Without libffi's headers: build-failed, cffi's setup.py stopping at "fatal error: ffi.h: No such file or directory".
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution?.artifacts).toContain('cffi-0.9.2.tar.gz');
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);

/**
 * The pip of Python 3.6 (18.1) prints only "Command ... failed with error code 1" for a dependency whose
 * build fails when it is quiet: the reason must hold the compiler's own error.
 */
testIf(missingPythons(['3.6']))(
  "a dependency whose C extension does not compile: the stage's reason holds the compiler's error",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-c-extension-'));
    // An sdist `broken-ext` 1.0 whose C extension does not compile (an #error with a marker).
    const links = await sdistLinks(dir, 'broken-ext-1.0', 'broken-ext-1.0.tar.gz', {
      'setup.py':
        'from setuptools import setup, Extension\nsetup(name="broken-ext", version="1.0", ext_modules=[Extension("broken_ext", ["broken_ext.c"])])\n',
      'broken_ext.c': '#error "chainsmith-compile-marker: this extension never compiles"\n',
      'PKG-INFO': 'Metadata-Version: 1.1\nName: broken-ext\nVersion: 1.0\n',
    });
    const chain = await addFixChain(
      dir,
      'gen/tally-broken-extension',
      { 'setup.py': tallySetupPy(), 'requirements.txt': 'broken-ext==1.0\n' },
      new Date('2015-06-10T00:00:00Z'),
      'from tally import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n',
    );
    const failure = await withFindLinks(links, () =>
      removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')))
        .forStage(chain, 0)
        .then(
          () => undefined,
          (err: unknown) => err as { reason?: { kind: string; tail?: string } },
        ),
    );
    // Without the fix (pip --quiet): the tail ends at pip's "failed with error code 1", the marker nowhere.
    expect(failure?.reason).toMatchObject({
      kind: 'build-failed',
      tail: expect.stringMatching(/chainsmith-compile-marker/),
    });
  },
  900_000,
);
