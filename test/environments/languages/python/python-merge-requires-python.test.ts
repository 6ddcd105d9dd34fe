import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { ciWorkflow, TALLY_PYPROJECT } from '../../../support/python-project';

// A dependency to fetch: a project that needs none keeps the image's Python, which both allow.
const PYPROJECT = `${TALLY_PYPROJECT}dependencies = ["iniconfig==1.1.1"]\n`;

const docker = new Docker();
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

/**
 * A PR that raises requires-python past the Python its base tests on (python-dateutil 4 asked for 3.9
 * where 3.0 ran on 3.8) and uses what only the newer Python has: chosen at the base alone, its merge
 * neither installs nor imports, and no test can verify it.
 */
testIf(missingPythons(['3.8']))(
  "a PR that raises requires-python runs on a Python its merge allows as well as its base's",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-merge-requires-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': PYPROJECT,
        '.github/workflows/tests.yml': ciWorkflow(['3.8']),
        'tally/__init__.py': 'def strip(text, prefix):\n    return text\n',
        'tests/test_zero.py': 'from tally import strip\n\n\ndef test_none():\n    assert strip("a", "") == "a"\n',
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2023-01-05T00:00:00Z'),
    );
    repo.at(new Date('2023-01-20T00:00:00Z'));
    const pr = await repo.pr(1, 'Python 3.9: strip with removeprefix', {
      'pyproject.toml': PYPROJECT.replace('>=3.8', '>=3.9'),
      'tally/__init__.py': 'def strip(text: str, prefix: str) -> str:\n    return text.removeprefix(prefix)\n',
      'tests/test_strip.py': 'from tally import strip\n\n\ndef test_strip():\n    assert strip("ab", "a") == "b"\n',
    });
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-requires', [pr]), 0);
    expect(gold.status).toBe('verified');
    expect(gold.failToPass).toEqual(['tests/test_strip.py::test_strip']);
    expect(gold.environment?.toolchain).toMatch(/^Python 3\.(9|1\d)\./);
  },
  900_000,
);
