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

const MANY = `import pytest\n\nfrom tally import add\n\n\n@pytest.mark.parametrize("n", [f"case-number-{i:05d}-of-a-long-parametrized-suite" for i in range(1500)])\ndef test_many(n):\n    assert add(len(n), 0) == len(n)\n`;

/**
 * A suite of 1,500 tests (a report of some 150k characters, past the 40k a run used to keep) after a
 * failure's long traceback: the test the PR fixes must still be named failing before the change and
 * passing after it, and every other test passing both times.
 */
test('a test the PR fixes verifies it in a suite whose per-test report is longer than 40k characters', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-large-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pytest.ini': '[pytest]\n',
    'tally/__init__.py': 'def add(a, b):\n    return a + b if b else a\n\n\ndef sub(a, b):\n    return a + b\n',
    'tests/test_many.py': MANY,
  });
  const pr = await repo.pr(1, 'Fix sub', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b if b else a\n\n\ndef sub(a, b):\n    return a - b\n',
    'tests/test_many.py': `${MANY}\n\ndef test_sub():\n    from tally import sub\n\n    assert sub(3, 1) == 2, "sub is wrong: " + "x" * 30000\n`,
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-large', [pr]), 0);
  expect(gold.failToPass).toEqual(['tests/test_many.py::test_sub']);
  expect(gold.passToPass).toHaveLength(1500);
}, 600_000);
