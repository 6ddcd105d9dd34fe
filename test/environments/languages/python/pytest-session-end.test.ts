import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestSignal } from '../../../../src/schemas';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo, type Files } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();
const environments = testEnvironments(docker);
removeBuiltImagesAfterAll(docker, environments);

const PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "0.1"\n';
const READ_FILES_ONLY =
  'import os\n\n\ndef read(path):\n    return open(path).read() if os.path.isfile(path) else None\n';
const READ_ANY = 'def read(path):\n    with open(path) as f:\n        return f.read()\n';

/** The PR's tests run as an agent's are at the stage's start (the PR's tests on the base), under `limit` seconds. */
async function runAtStart(name: string, tests: Files, limit: number): Promise<TestSignal> {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-pytest-${name}-`));
  const repo = await ChainRepo.create(join(dir, 'tally'), {
    'pyproject.toml': PYPROJECT,
    'tally/__init__.py': READ_FILES_ONLY,
  });
  const pr = await repo.pr(1, 'Read any file', { 'tally/__init__.py': READ_ANY, ...tests });
  const chain = repo.chain(`gen/tally-${name}`, [pr]);
  const sandbox = await StageSandbox.open(goldDeps(docker, dir, environments), chain, 0, { role: { kind: 'gold' } });
  try {
    return await sandbox.runPrTests(pr, limit);
  } finally {
    await sandbox.destroy();
  }
}

/**
 * Before the fix, one test leaves a thread blocked for good (a writer on a FIFO the code never opens)
 * and another a server process it never stops: pytest prints its report, then the interpreter waits
 * for both at exit. The run must end with pytest's session and its status, not at the run's limit
 * (every such run an agent or the judge makes would wait it out), and the test command stay the
 * project's own pytest line (agents see it).
 */
test("a thread or a server process a test leaves behind does not hold the run past pytest's session", async () => {
  const thread = await runAtStart(
    'thread',
    {
      'tests/test_read.py': `import os
import threading

from tally import read


def test_read_fifo(tmp_path):
    fifo = tmp_path / "in"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as w:
            w.write("hello")

    threading.Thread(target=writer).start()
    assert read(str(fifo)) == "hello"
`,
    },
    120,
  );
  expect(thread.timedOut).toBeUndefined();
  expect(thread.exitCode).toBe(1);
  expect(thread.cases).toEqual([{ id: 'tests/test_read.py::test_read_fifo', outcome: 'failed' }]);
  expect(thread.command).toMatch(/^(export PATH=.*\n)?python3 -m pytest /);
  const server = await runAtStart(
    'server',
    {
      'tests/test_serve.py': `import multiprocessing
import time


def serve():
    while True:
        time.sleep(1)


def test_serves():
    multiprocessing.Process(target=serve).start()
`,
    },
    120,
  );
  expect(server.timedOut).toBeUndefined();
  expect(server.exitCode).toBe(0);
  expect(server.cases).toEqual([{ id: 'tests/test_serve.py::test_serves', outcome: 'passed' }]);
}, 900_000);

/**
 * Before the fix, a test hangs (it waits for a FIFO's reader the code never opens): the run's limit
 * ends it before pytest writes its summary. The tests it reported before are still read one by one,
 * and the one under way is a failure, not a run that says nothing but its exit code.
 */
test('a run its limit ends still reports the tests pytest ran, the one under way as failed', async () => {
  const run = await runAtStart(
    'hang',
    {
      'tests/test_read.py': `import os
import threading

from tally import read


def test_read_file(tmp_path):
    path = tmp_path / "in"
    path.write_text("hello")
    assert read(str(path)) == "hello"


def test_read_fifo(tmp_path):
    fifo = tmp_path / "in"
    os.mkfifo(fifo)
    done = threading.Event()

    def reader():
        read(str(fifo))
        done.set()

    threading.Thread(target=reader, daemon=True).start()
    with open(fifo, "w") as w:
        w.write("hello")
    assert done.wait()
`,
    },
    // Past pytest's start and the first test on a loaded machine (at load 10, 30 s ended some runs before either).
    60,
  );
  expect(run.timedOut).toBe(true);
  expect(run.cases).toEqual([
    { id: 'tests/test_read.py::test_read_file', outcome: 'passed' },
    { id: 'tests/test_read.py::test_read_fifo', outcome: 'failed' },
  ]);
}, 900_000);
