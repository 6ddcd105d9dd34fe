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

const testFile = (n: number) =>
  `import iniconfig\nfrom tally import add\n\n\ndef test_add_${n}():\n    assert add(${n}, 1) == ${n + 1}\n`;

/**
 * The PR's merge is resolved with the recipe detected on its base: its extras and groups must be the
 * merge's own, where the PR moves the test extra to a dependency group (as attrs did in 2025).
 */
test("a PR that moves the test extra to a dependency group resolves at its merge with the merge's own group", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-merge-groups-'));
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'pyproject.toml': `${TALLY_PYPROJECT}\n[project.optional-dependencies]\ntests = ["iniconfig==2.0.0"]\n`,
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': testFile(0),
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-01-05T00:00:00Z'),
  );
  repo.at(new Date('2024-01-20T00:00:00Z'));
  const pr = await repo.pr(1, 'Test dependencies as a group', {
    'pyproject.toml': `${TALLY_PYPROJECT}\n[dependency-groups]\ntests = ["iniconfig==2.0.0"]\n`,
    'tests/test_1.py': testFile(1),
  });
  const env = await testEnvironments(docker, {}, join(dir, 'data')).forStage(repo.chain('gen/tally-groups', [pr]), 0);
  images.push(env.image);
  const resolution = env.manifest.resolution!;
  expect(resolution.packages.map((p) => `${p.name}@${p.version}`)).toContain('iniconfig@2.0.0');
  // The merge asked for its group: what it resolves to is the base's extra's.
  expect(resolution.notes.join('\n')).toMatch(/resolve to the same packages: one installation serves both/);
}, 900_000);

/** The merge's project file is its own too: a PR that drops setup.py for a pyproject.toml (tabulate 0.9, dateutil 4) is resolved from the latter. */
test("a PR that moves the project from setup.py to pyproject.toml resolves at its merge from the merge's own project file", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-merge-project-'));
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'setup.py':
        'from setuptools import setup\n\nsetup(name="tally", version="0.1", packages=["tally"], extras_require={"tests": ["iniconfig==2.0.0"]})\n',
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': testFile(0),
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-01-05T00:00:00Z'),
  );
  repo.at(new Date('2024-01-20T00:00:00Z'));
  const pr = await repo.pr(1, 'Metadata in pyproject.toml', {
    'setup.py': null,
    'pyproject.toml': `${TALLY_PYPROJECT}\n[project.optional-dependencies]\ntests = ["iniconfig==2.0.0"]\n`,
    'tests/test_1.py': testFile(1),
  });
  const env = await testEnvironments(docker, {}, join(dir, 'data')).forStage(repo.chain('gen/tally-project', [pr]), 0);
  images.push(env.image);
  expect(env.manifest.resolution!.packages.map((p) => `${p.name}@${p.version}`)).toContain('iniconfig@2.0.0');
}, 900_000);
