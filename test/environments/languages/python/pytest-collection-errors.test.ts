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
 * A PR whose test files include one the environment cannot collect (it imports a module nobody
 * installed): pytest 3.0 and later would stop there, and the PR's other test file, the one that
 * verifies it, would run no test.
 */
test("a test file that cannot be collected does not keep the PR's other test files from verifying it", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-collection-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pytest.ini': '[pytest]\n',
    'tally/__init__.py': 'def add(a, b):\n    return a - b\n',
    'tests/test_zero.py': 'from tally import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
  });
  const pr = await repo.pr(1, 'Fix add', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
    'tests/test_speed.py': 'import not_installed_benchmark_tool\n\n\ndef test_speed():\n    pass\n',
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-collection', [pr]), 0);
  expect(gold.status).toBe('verified');
  expect(gold.failToPass).toEqual(['tests/test_add.py::test_add']);
}, 600_000);
