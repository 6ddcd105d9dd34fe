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
 * Parametrized ids hold their parameters as given, spaces included ("test_words[two words]"): cut at
 * the first space, both of these would be one test, "test_words[two", passing or failing as either did.
 */
test('a parametrized test whose ids hold spaces is reported under its whole ids', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-spaced-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pytest.ini': '[pytest]\n',
    'tally/__init__.py': 'def words(text):\n    return 1\n',
    'tests/test_one.py': 'from tally import words\n\n\ndef test_one():\n    assert words("one") == 1\n',
  });
  const pr = await repo.pr(1, 'Count words', {
    'tally/__init__.py': 'def words(text):\n    return len(text.split())\n',
    'tests/test_words.py':
      'import pytest\nfrom tally import words\n\n\n@pytest.mark.parametrize("text, n", [("two words", 2), ("two more words", 3), ("one", 1)], ids=["two words", "two more", "one"])\ndef test_words(text, n):\n    assert words(text) == n\n',
  });
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-spaced-ids', [pr]), 0);
  expect(gold.status).toBe('verified');
  expect([...gold.failToPass].sort()).toEqual([
    'tests/test_words.py::test_words[two more]',
    'tests/test_words.py::test_words[two words]',
  ]);
}, 600_000);
