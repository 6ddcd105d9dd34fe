import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { declarationsDate } from '../../src/environments/declarations-date';
import { withoutOwnVersion as cargoWithoutVersion } from '../../src/environments/languages/rust/detect';
import { manifestsDate } from '../../src/environments/repo-files';
import { git } from '../../src/git';
import { ChainRepo } from '../support/chain-repo';
import { testEnvironments } from '../support/environments';
import { removeImages } from '../support/containers';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const pyproject = (version: string, description = 'Adds numbers') =>
  `[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "${version}"\ndescription = "${description}"\n`;
const versions = (packages: Array<{ name: string; version: string }> | undefined) =>
  (packages ?? []).map((p) => `${p.name}@${p.version}`);

test("a crate's own version is not one of its dependencies", () => {
  const manifest = (own: string, itoa: string) =>
    `[package]\nname = "x"\nversion = "${own}"\n\n[dependencies]\nitoa = { version = "${itoa}" }\n\n[workspace.package]\nversion = "${own}"\n`;
  expect(cargoWithoutVersion('Cargo.toml', manifest('1.0.1', '1.0'))).toBe(
    cargoWithoutVersion('Cargo.toml', manifest('1.0.2', '1.0')),
  );
  expect(cargoWithoutVersion('Cargo.toml', manifest('1.0.1', '1.0'))).not.toBe(
    cargoWithoutVersion('Cargo.toml', manifest('1.0.1', '1.1')),
  );
  const lock = (own: string, itoa: string) =>
    `version = 3\n\n[[package]]\nname = "itoa"\nversion = "${itoa}"\nsource = "registry+https://example.test/index"\n\n[[package]]\nname = "x"\nversion = "${own}"\ndependencies = ["itoa"]\n`;
  expect(cargoWithoutVersion('Cargo.lock', lock('1.0.1', '1.0.5'))).toBe(
    cargoWithoutVersion('Cargo.lock', lock('1.0.2', '1.0.5')),
  );
  expect(cargoWithoutVersion('Cargo.lock', lock('1.0.1', '1.0.5'))).not.toBe(
    cargoWithoutVersion('Cargo.lock', lock('1.0.1', '1.0.6')),
  );
});

test('dependencies resolve as of the last change to what the manifests declare, not to their bytes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-declared-'));
  const repo = await ChainRepo.create(
    join(dir, 'r'),
    { 'pyproject.toml': pyproject('0.1'), 'requirements.txt': 'iniconfig\n' },
    new Date('2024-06-01T00:00:00Z'),
  );
  const first = await repo.head();
  const release = await repo.at(new Date('2025-06-01T00:00:00Z')).commit('Release 0.2', {
    'pyproject.toml': pyproject('0.2'),
  });
  const added = await repo.commit('Require six', { 'requirements.txt': 'iniconfig\nsix\n' });
  const manifests = ['pyproject.toml', 'requirements.txt'];
  const declared = async (rev: string) => {
    const texts = await Promise.all(
      manifests.map(async (m) => (await git(repo.path, ['show', `${rev}:${m}`])).replace(/^version = .*$/m, '')),
    );
    return texts.join('\0');
  };
  // The release changed the manifests' bytes, not their declarations.
  expect((await manifestsDate(repo.path, release, manifests)).toISOString()).toBe('2025-06-01T00:00:00.000Z');
  expect((await declarationsDate(repo.path, release, manifests, declared)).toISOString()).toBe(
    '2024-06-01T00:00:00.000Z',
  );
  expect((await declarationsDate(repo.path, added, manifests, declared)).toISOString()).toBe(
    '2025-06-01T00:01:00.000Z',
  );
  expect((await declarationsDate(repo.path, first, manifests, declared)).toISOString()).toBe(
    '2024-06-01T00:00:00.000Z',
  );
});

/**
 * A Python project that requires iniconfig with no pin (2.0.0 was the newest until 2025-03, then
 * 2.1.0), from the registry the host's pip is configured for. #1 releases 0.2 months later, #2
 * changes the project's description and a test, #3 adds six and a test that imports it, and, after
 * iniconfig 2.1.0 is out, #4 raises the floor to it.
 */
test("a release, a metadata change and a PR's new requirement keep the base's resolution date; a floor past it resolves as of the merge", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-dates-'));
  const test = (body: string) => `import tally\n\n\n${body}`;
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'pyproject.toml': pyproject('0.1'),
      'requirements.txt': 'iniconfig\n',
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': test('def test_add():\n    assert tally.add(1, 2) == 3\n'),
      NONCE: randomBytes(8).toString('hex'),
    },
    new Date('2024-06-01T00:00:00Z'),
  );
  repo.at(new Date('2024-09-01T00:00:00Z'));
  const release = await repo.pr(1, 'Release 0.2', {
    'pyproject.toml': pyproject('0.2'),
    'tally/__init__.py': 'def add(a, b):\n    return b + a\n',
  });
  const describe = await repo.pr(2, 'Describe the project', {
    'pyproject.toml': pyproject('0.2', 'Adds numbers, in either order'),
    'tests/test_add.py': test('def test_add():\n    assert tally.add(1, 2) == tally.add(2, 1) == 3\n'),
  });
  const six = await repo.pr(3, 'Shout with six', {
    'requirements.txt': 'iniconfig\nsix==1.16.0\n',
    'tally/__init__.py':
      'import six\n\n\ndef add(a, b):\n    return b + a\n\n\ndef shout(s):\n    return six.ensure_str(s).upper()\n',
    'tests/test_shout.py': test('def test_shout():\n    assert tally.shout(b"hi") == "HI"\n'),
  });
  repo.at(new Date('2025-06-01T00:00:00Z'));
  const floor = await repo.pr(4, 'Require iniconfig 2.1', {
    'requirements.txt': 'iniconfig>=2.1\nsix==1.16.0\n',
    'tests/test_shout.py': test('def test_shout():\n    assert tally.shout("hi") == "HI"\n'),
  });
  const chain = repo.chain('gen/tally-dates', [release, describe, six, floor]);
  const environments = testEnvironments(docker);
  const envs = [];
  for (const stage of [0, 1, 2, 3]) envs.push(await environments.forStage(chain, stage));
  images.push(...envs.map((e) => e.image));
  const [first, second, third, fourth] = envs;

  // #2's base is after the release (dated by bytes, months on); its merge changes only metadata: one environment for both stages.
  expect(versions(first.manifest.resolution?.packages)).toContain('iniconfig@2.0.0');
  expect(second.image).toBe(first.image);
  expect(second.manifest.resolution?.merged).toBeUndefined();
  // #3's merge adds six and keeps iniconfig as its base resolved it.
  expect(versions(third.manifest.resolution?.merged?.packages)).toEqual(
    expect.arrayContaining(['iniconfig@2.0.0', 'six@1.16.0']),
  );
  // #4's floor was not published by its base's date: its merge resolves as of its own.
  expect(versions(fourth.manifest.resolution?.packages)).toContain('iniconfig@2.0.0');
  expect(versions(fourth.manifest.resolution?.merged?.packages)).toContain('iniconfig@2.1.0');
  expect(environments.built.map((b) => b.image)).toEqual([first.image, third.image, fourth.image]);
}, 900_000);
