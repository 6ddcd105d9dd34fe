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

const FIFO_TEST = `import os
import threading

from tally import read


def test_read_fifo(tmp_path):
    fifo = tmp_path / "in"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as w:
            w.write("hello")

    t = threading.Thread(target=writer)
    t.start()
    assert read(str(fifo)) == "hello"
    t.join(timeout=2)
`;

/**
 * A test that, before the fix, leaves a thread blocked for good (a writer on a FIFO the code never
 * opens): pytest prints its report, then the interpreter waits for that thread at exit. The run must
 * end with pytest's session, not at the run's limit (600 s), and the test verify the PR.
 */
test("a test that leaves a thread blocked before the fix verifies it, the run ending with pytest's report", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-pytest-lingering-'));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pyproject.toml':
      '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "0.1"\n',
    'tally/__init__.py':
      'import os\n\n\ndef read(path):\n    return open(path).read() if os.path.isfile(path) else None\n',
  });
  const pr = await repo.pr(1, 'Read any file', {
    'tally/__init__.py': 'def read(path):\n    with open(path) as f:\n        return f.read()\n',
    'tests/test_read.py': FIFO_TEST,
  });
  const started = Date.now();
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), repo.chain('gen/tally-lingering', [pr]), 0);
  expect(gold.failToPass).toEqual(['tests/test_read.py::test_read_fifo']);
  expect(Date.now() - started).toBeLessThan(590_000);
}, 900_000);
