import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

/**
 * A 2017 project on Python 3.6 that needs zope.interface 4.3.3, an sdist built in the image (a C
 * extension). Its venv's pip (18.1) finds an sdist only by its file's name as spelt
 * (`zope.interface-4.3.3.tar.gz`), where the resolver pins `zope-interface==4.3.3`: "no version". And
 * zope.interface asks for setuptools at run time, which the resolution took past its date to read
 * setup.py's metadata: setuptools 59, which has no `Feature` (gone in 46) for its setup.py to import.
 */
test("a 2017 sdist with a dotted name and an old setup.py installs with the era's pip and setuptools", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-sdist-names-'));
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'setup.py':
        'from setuptools import setup\nsetup(name="tally", version="0.1", packages=["tally"], install_requires=["zope.interface==4.3.3"])\n',
      'tally/__init__.py': 'from zope.interface import Interface\n\n\ndef add(a, b):\n    return a - b\n',
      'tests/test_zero.py': 'from tally import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    },
    new Date('2017-06-01T00:00:00Z'),
  );
  const pr = await repo.pr(1, 'Fix add', {
    'tally/__init__.py': 'from zope.interface import Interface\n\n\ndef add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-sdist-names', [pr]), 0);
  expect(gold.reason).toBeUndefined();
  expect(gold.failToPass).toEqual(['tests/test_add.py::test_add']);
}, 900_000);
