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
 * An expected failure is no pass, wherever outcomes are read: a PR whose tests after the change either
 * fail or fail as expected has none that passes (its environment cannot run what it checks), as the
 * classification of FAIL_TO_PASS and PASS_TO_PASS already counted it.
 */
test('a PR whose tests only fail or fail as expected after the change has no passing test', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-xfail-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pytest.ini': '[pytest]\n',
    'tally/__init__.py': 'def add(a, b):\n    return a - b\n',
  });
  const pr = await repo.pr(1, 'Fix add', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py':
      'import pytest\nimport not_installed_tool\n\n\ndef test_add():\n    assert not_installed_tool\n\n\n@pytest.mark.xfail(reason="later")\ndef test_later():\n    assert False\n',
    'tests/test_known.py':
      'import pytest\n\n\n@pytest.mark.xfail(reason="known")\ndef test_known():\n    assert False\n',
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-xfail', [pr]), 0);
  expect(gold.status).toBe('no-verifying-test');
  expect(gold.reason?.kind).toBe('tests-not-runnable');
  expect(gold.reason?.summary).toMatch(/none of the PR's 2 reported tests passes after the change/);
}, 600_000);
