import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRepo } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';
import { missingPythons, testIf } from '../../../support/preconditions';
import { ciWorkflow } from '../../../support/python-project';

const docker = new Docker();

// A setup.py that fails as pip reads its metadata in the image (in its venv, /work/.venv; not on the host, which
// reads it with the same Python 3.6 to resolve, in a build environment of its own), saying why on stderr.
const SETUP_PY =
  'import sys\nfrom setuptools import setup\n\nif "egg_info" in sys.argv and sys.prefix == "/work/.venv":\n    sys.exit("tally-setup-marker: this setup.py cannot describe itself")\nsetup(name="tally", version="0.1", packages=["tally"], install_requires=["six"])\n';

/**
 * The pip of 2018 (Python 3.6's) prints nothing of a failed `setup.py egg_info` but its exit code when
 * quiet: the reason of an environment whose project does not install says what the setup.py said,
 * and its last lines are not the echo of a setup script.
 */
testIf(missingPythons(['3.6']))(
  "a project whose setup.py fails as pip installs it: the stage's reason holds the setup.py's own error",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-build-failed-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'setup.py': SETUP_PY,
        '.github/workflows/tests.yml': ciWorkflow(['3.6']),
        'tally/__init__.py': 'def add(a, b):\n    return a - b\n',
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2018-03-07T00:00:00Z'),
    );
    const chain = repo.chain('gen/tally-build-failed', [
      await repo.pr(1, 'Add adds', { 'tally/__init__.py': 'def add(a, b):\n    return a + b\n' }),
    ]);
    const failure = await testEnvironments(docker, {}, join(dir, 'data'))
      .forStage(chain, 0)
      .then(
        () => undefined,
        (err: unknown) => err as { reason?: { kind: string; command?: string; tail?: string } },
      );
    expect(failure?.reason).toMatchObject({
      kind: 'build-failed',
      command: expect.stringMatching(/pip install .*-e \./),
      tail: expect.stringMatching(/tally-setup-marker: this setup.py cannot describe itself/),
    });
    expect(failure?.reason?.tail).not.toMatch(/os\.rmdir/);
  },
  20 * 60_000,
);
