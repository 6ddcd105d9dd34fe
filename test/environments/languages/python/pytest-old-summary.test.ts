import Docker from 'dockerode';
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
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

/**
 * pytest before 2.9 (a project of 2015 pins 2.8.7) writes a failure ("FAIL id") but no line for a
 * passed test, whatever -r asks: the run after the fix, every test passing, reported none, and a
 * stage whose test fails before and passes after verified nothing.
 */
testIf(missingPythons(['3.6']))(
  'a stage on pytest 2.8 verifies: its passed tests are reported too',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-old-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'setup.py': 'from setuptools import setup\n\nsetup(name="tally", version="0.1", packages=["tally"])\n',
        'requirements-test.txt': 'pytest==2.8.7\npy==1.4.31\n',
        '.github/workflows/tests.yml': ciWorkflow(['3.6']),
        'tally/__init__.py': 'def add(a, b):\n    return a - b\n',
      },
      new Date('2016-03-01T00:00:00Z'),
    );
    repo.at(new Date('2016-03-02T00:00:00Z'));
    const pr = await repo.pr(1, 'Fix add', {
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py':
        'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
    });
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-pytest28', [pr]), 0);
    expect(gold.signal).toBe('per-test');
    expect(gold.failToPass).toEqual(['tests/test_add.py::test_add']);
    expect(gold.passToPass).toEqual(['tests/test_add.py::test_zero']);
  },
  900_000,
);
