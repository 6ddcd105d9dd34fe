import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
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
 * opens): pytest prints its report, then the interpreter waits for that thread at exit. Run as an
 * agent's tests are at the stage's start (the PR's tests on the base), the run must end with pytest's
 * session and its status, not at the run's limit (every such run an agent or the judge makes would
 * wait it out), and the test command stay the project's own pytest line (agents see it).
 */
test("a test that leaves a thread blocked ends its run with pytest's session, not at the run's limit", async () => {
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
  const chain = repo.chain('gen/tally-lingering', [pr]);
  const sandbox = await StageSandbox.open(goldDeps(docker, dir, environments), chain, 0, { role: { kind: 'gold' } });
  try {
    const run = await sandbox.runPrTests(pr, 120);
    expect(run.timedOut).toBeUndefined();
    expect(run.exitCode).toBe(1);
    expect(run.cases).toEqual([{ id: 'tests/test_read.py::test_read_fifo', outcome: 'failed' }]);
    expect(run.command).toMatch(/^(export PATH=.*\n)?python3 -m pytest /);
  } finally {
    await sandbox.destroy();
  }
}, 900_000);
