import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * The packages an environment gets for `tally` with `files` besides its code, whose tests import six
 * at the base and colorama in its PR's new test: what a project keeps its test requirements in decides
 * whether they can run.
 */
async function installed(name: string, files: Record<string, string>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-py-${name}-`));
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'pyproject.toml': TALLY_PYPROJECT,
      ...files,
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': 'import six\n\nfrom tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-06-01T00:00:00Z'),
  );
  repo.at(new Date('2024-06-10T00:00:00Z'));
  const pr = await repo.pr(1, 'Subtract', {
    'tally/__init__.py': 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n',
    'tests/test_sub.py': 'import colorama\n\nfrom tally import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
  });
  const built = await testEnvironments(docker, {}, join(dir, 'data')).forStage(repo.chain(`gen/${name}`, [pr]), 0);
  images.push(built.image);
  return (built.manifest.resolution?.packages ?? []).map((p) => p.name.toLowerCase());
}

test('the requirement files tox and nox install by -r are installed in the environment', async () => {
  const names = await installed('tally-run-requirements', {
    'tox.ini': '[tox]\nenvlist = py311\n\n[testenv]\ndeps = -r{toxinidir}/ci/pytest-deps.txt\ncommands = pytest\n',
    'noxfile.py':
      'import nox\n\n\n@nox.session\ndef tests(session):\n    session.install("-r", "ci/nox-deps.txt")\n    session.run("pytest")\n',
    'ci/pytest-deps.txt': 'six\n',
    'ci/nox-deps.txt': 'colorama\n',
  });
  expect(names).toEqual(expect.arrayContaining(['six', 'colorama']));
}, 900_000);

test("hatch-test's extra-dependencies and uv's dev-dependencies are installed in the environment", async () => {
  const names = await installed('tally-tool-tables', {
    'pyproject.toml': `${TALLY_PYPROJECT}\n[tool.uv]\ndev-dependencies = ["six"]\n\n[tool.hatch.envs.hatch-test]\nextra-dependencies = ["colorama"]\n`,
  });
  expect(names).toEqual(expect.arrayContaining(['six', 'colorama']));
}, 900_000);
