import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../../../../src/environments/host-tools';
import { uvSettings } from '../../../../src/environments/languages/python/fetch';
import { makeToolsVenv } from '../../../../src/environments/languages/python/tools-venv';
import { ChainRepo } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';
import { removeImages } from '../../../support/containers';
import { TALLY_PYPROJECT } from '../../../support/python-project';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

/**
 * A committed uv.lock that no longer holds what the project declares (a dependency added without
 * locking again): its export is installed as it is, without dependencies, so nothing else says that
 * the project's own requirement is missing. The build goes on; its log says what pip check found.
 */
test("a stale lock's missing requirement is named in the build log, and the environment still builds", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-pip-check-'));
  const data = join(dir, 'data');
  const pyproject = `${TALLY_PYPROJECT}\n[dependency-groups]\ntests = ["pytest"]\n`;
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'pyproject.toml': pyproject,
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': 'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-06-01T00:00:00Z'),
  );
  const venv = join(data, 'tools', 'uv');
  await makeToolsVenv(venv);
  const lock = await runTool(join(venv, 'bin', 'uv'), ['lock', '--exclude-newer', '2024-06-01T00:00:00Z'], {
    cwd: repo.path,
    env: await uvSettings(join(venv, 'bin', 'python')),
  });
  expect(lock.code ? lock.stderr : 'locked').toBe('locked');
  // The dependency is added after the lock was written, and the lock is not written again.
  await repo.commit('Lock, then depend on six', {
    'uv.lock': await readFile(join(repo.path, 'uv.lock')),
    'pyproject.toml': pyproject.replace('requires-python', 'dependencies = ["six"]\nrequires-python'),
  });
  repo.at(new Date('2024-06-10T00:00:00Z'));
  const pr = await repo.pr(1, 'Subtract', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
    'tests/test_sub.py': 'from tally import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
  });
  const log: string[] = [];
  const built = await testEnvironments(docker, {}, data, (line) => log.push(line)).forStage(
    repo.chain('gen/tally-pip-check', [pr]),
    0,
  );
  images.push(built.image);
  expect(built.manifest.resolution).toMatchObject({ lock: 'committed' });
  expect(log.join('\n')).toMatch(
    /pip check in \/work\/\.venv \(not a failure\): tally 0\.1 requires six, which is not installed/,
  );
}, 900_000);
