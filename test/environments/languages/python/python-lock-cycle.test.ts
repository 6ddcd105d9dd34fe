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

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "six"\nversion = "1.16.0"\nrequires-python = ">=3.8"\n\n[dependency-groups]\ntests = ["pytest", "python-dateutil"]\n';
const testFile = (n: number) => `from six import answer\n\n\ndef test_${n}():\n    assert answer() == ${n}\n`;

/**
 * A library that a package its tests use depends on (python-dateutil needs six; hypothesis needs
 * attrs), whose committed uv.lock is exported without the project itself: the requirements name a
 * package that needs the project, which only the editable install after them provides.
 */
test('a locked library its own test tool depends on builds: the requirements are installed as resolved, the project after them', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-lock-cycle-'));
  const data = join(dir, 'data');
  const repo = await ChainRepo.create(
    join(dir, 'six'),
    {
      'pyproject.toml': PYPROJECT,
      'six/__init__.py': 'def answer():\n    return 0\n',
      'tests/test_0.py': testFile(0),
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-06-01T00:00:00Z'),
  );
  // The lock as uv writes it, with the uv the fetch then uses (its tools venv in the data directory).
  const venv = join(data, 'tools', 'uv');
  await makeToolsVenv(venv);
  const env = await uvSettings(join(venv, 'bin', 'python'));
  const lock = await runTool(join(venv, 'bin', 'uv'), ['lock', '--exclude-newer', '2024-06-01T00:00:00Z'], {
    cwd: repo.path,
    env,
  });
  expect(lock.code ? lock.stderr : 'locked').toBe('locked');
  expect(await readFile(join(repo.path, 'uv.lock'), 'utf8')).toMatch(/name = "pytest"/);
  await repo.commit('Lock', { 'uv.lock': await readFile(join(repo.path, 'uv.lock')) });
  repo.at(new Date('2024-06-10T00:00:00Z'));
  const pr = await repo.pr(1, 'Answer one', {
    'six/__init__.py': 'def answer():\n    return 1\n',
    'tests/test_0.py': null,
    'tests/test_1.py': testFile(1),
  });
  const built = await testEnvironments(docker, {}, data).forStage(repo.chain('gen/six-lock', [pr]), 0);
  images.push(built.image);
  expect(built.manifest.resolution).toMatchObject({ lock: 'committed' });
  const names = built.manifest.resolution!.packages.map((p) => p.name);
  expect(names).toEqual(expect.arrayContaining(['pytest', 'python-dateutil']));
  expect(names).not.toContain('six');
}, 900_000);
