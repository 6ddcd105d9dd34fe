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

// nose 1.2.1 is an sdist only, of Python 2 code its setup.py converts with 2to3 as it builds (use_2to3).
const testFile =
  'from nose.tools import assert_equal\nfrom tally import add\n\n\ndef test_add():\n    assert_equal(add(2, 1), 3)\n';

/**
 * A project of 2013 whose tests import a dependency published as one-source Python 2 code that setup.py
 * converts with 2to3 as it builds. The fetch built that sdist into a wheel on the host, whose setuptools
 * (58 on) no longer converts, so the wheel held Python 2 code and every test module failed at import
 * (`print "%s version %s"`). The image's setuptools of the Python's era converts it: the host leaves it.
 */
testIf(missingPythons(['3.6']))(
  'a dependency converted with 2to3 as it builds is built in the image, not on the host: its tests import it and the PR verifies',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-2to3-sdist-'));
    const chain = await addFixChain(
      dir,
      'gen/tally-2to3-sdist',
      { 'setup.py': tallySetupPy(), 'requirements.txt': 'nose==1.2.1\n' },
      new Date('2013-04-10T00:00:00Z'),
      testFile,
    );
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'data')));
    // What the image installs from is recorded (and keys the image): the sdist, with no host-built wheel beside it.
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution?.artifacts).toContain('nose-1.2.1.tar.gz');
    expect(env.manifest.resolution?.artifacts?.filter((f) => f.startsWith('nose-'))).toEqual(['nose-1.2.1.tar.gz']);
    expect(await goldTestsFor(goldDeps(docker, dir, environments), chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['tests/test_add.py::test_add'],
    });
  },
  900_000,
);
