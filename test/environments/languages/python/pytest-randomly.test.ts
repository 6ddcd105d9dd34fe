import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { TALLY_PYPROJECT } from '../../../support/python-project';

const docker = new Docker();
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

/**
 * A project whose test dependencies hold pytest-randomly: the plugin loads itself wherever it is installed,
 * and its releases up to 3.10.1 (2021) write a seed into pytest's cache at configuration, which the test
 * command keeps out of the checkout. Unblocked, every run stops with an internal error and no stage of
 * such a project verifies.
 */
test('a project testing with pytest-randomly verifies its stages', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-randomly-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pyproject.toml': TALLY_PYPROJECT,
    // The last release that writes the cache unasked (3.10.1, November 2021).
    'requirements-test.txt': 'pytest\npytest-randomly==3.10.1\n',
    'tally/__init__.py': 'def add(a, b):\n    return a - b\n',
    'tests/test_zero.py': 'from tally import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
  });
  const pr = await repo.pr(1, 'Fix add', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-randomly', [pr]), 0);
  expect(gold.reason).toBeUndefined();
  expect(gold.failToPass).toEqual(['tests/test_add.py::test_add']);
}, 600_000);
