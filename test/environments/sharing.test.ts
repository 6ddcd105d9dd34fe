import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { withoutOwnVersion as pomWithoutVersion } from '../../src/environments/languages/java/detect';
import { withoutOwnVersion as pythonWithoutVersion } from '../../src/environments/languages/python/declarations';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { ChainRepo } from '../support/chain-repo';
import { ownSandboxes, removeImages } from '../support/containers';
import { testEnvironments } from '../support/environments';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  await removeImages(docker, images);
});

const pyproject = (version: string) =>
  `[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "tally"\nversion = "${version}"\n`;

test("a project's own version is not one of its dependencies", () => {
  const pom = (v: string, junit = '4.12') =>
    `<project><parent><artifactId>oss-parent</artifactId><version>7</version></parent><groupId>org.x</groupId><artifactId>x</artifactId>\n<packaging>jar</packaging>\n<version>${v}</version>` +
    `<scm><tag>x-${v}</tag></scm><dependencies><dependency><artifactId>junit</artifactId><version>${junit}</version></dependency></dependencies></project>`;
  expect(pomWithoutVersion('pom.xml', pom('1.2'))).toBe(pomWithoutVersion('pom.xml', pom('1.3-SNAPSHOT')));
  expect(pomWithoutVersion('pom.xml', pom('1.2'))).not.toBe(pomWithoutVersion('pom.xml', pom('1.2', '4.13')));
  // The parent's version is a dependency (its POM is fetched).
  expect(pomWithoutVersion('pom.xml', pom('1.2'))).not.toBe(
    pomWithoutVersion('pom.xml', pom('1.2').replace('<version>7<', '<version>9<')),
  );
  // A POM without a version of its own (its parent's) keeps its dependencies' versions.
  const inherits = pom('1.2').replace('<version>1.2</version>', '');
  expect(pomWithoutVersion('pom.xml', inherits)).not.toBe(
    pomWithoutVersion('pom.xml', inherits.replace('4.12', '4.13')),
  );
  expect(pythonWithoutVersion('pyproject.toml', pyproject('0.1'))).toBe(
    pythonWithoutVersion('pyproject.toml', pyproject('0.2')),
  );
  expect(pythonWithoutVersion('setup.py', "setup(\n    name='x',\n    version='2.7-dev',\n)")).toBe(
    pythonWithoutVersion('setup.py', "setup(\n    name='x',\n    version='2.8',\n)"),
  );
  expect(pythonWithoutVersion('requirements.txt', 'version==1\n')).toBe('version==1\n');
  // Only the project's own version: a Poetry dependency's `version =` decides what is installed.
  const poetry = (own: string, dep: string) =>
    `[tool.poetry]\nname = "x"\nversion = "${own}"\n\n[tool.poetry.dependencies.requests]\nversion = "${dep}"\noptional = true\n`;
  expect(pythonWithoutVersion('pyproject.toml', poetry('1.0', '2.28.1'))).toBe(
    pythonWithoutVersion('pyproject.toml', poetry('1.1', '2.28.1')),
  );
  expect(pythonWithoutVersion('pyproject.toml', poetry('1.0', '2.28.1'))).not.toBe(
    pythonWithoutVersion('pyproject.toml', poetry('1.0', '2.31.0')),
  );
  expect(pythonWithoutVersion('setup.cfg', '[metadata]\nversion = 1.0\n[options.extras_require]\nversion = 2\n')).toBe(
    '[metadata]\n[options.extras_require]\nversion = 2\n',
  );
});

/**
 * Four stages of a Python project whose requirements the host resolves and fetches (from the
 * registry the host's pip is configured for): #1 bumps the project's version, #2 changes its code, #3
 * adds a requirement and a test that imports it, #4 changes code again, #5 drops the requirement.
 */
test("stages with the same resolved dependencies share one environment; a PR that changes its requirements runs at its base on the base's resolution and after the change on its merge's", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-sharing-'));
  // A history of its own (its first commit differs each run), so that this run builds its environments.
  const repo = await ChainRepo.create(
    join(dir, 'tally'),
    {
      'pyproject.toml': pyproject('0.1'),
      'requirements.txt': 'iniconfig==2.0.0\n',
      'tally/__init__.py': 'def add(a, b):\n    return a + b\n',
      'tests/test_add.py': 'from tally import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
      NONCE: randomBytes(8).toString('hex'),
      // Dependencies resolve as of the manifests' dates: after every pinned version was published.
    },
    new Date('2024-06-01T00:00:00Z'),
  );
  const release = await repo.pr(1, 'Release 0.2', {
    'pyproject.toml': pyproject('0.2'),
    'tally/__init__.py': 'def add(a, b):\n    return b + a\n',
  });
  const twice = await repo.pr(2, 'Add twice', {
    'tally/__init__.py': 'def add(a, b):\n    return b + a\n\n\ndef twice(a):\n    return add(a, a)\n',
    'tests/test_add.py':
      'from tally import add\nimport tally\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\ndef test_twice():\n    assert tally.twice(2) == 4\n',
  });
  const code =
    'import six\n\n\ndef add(a, b):\n    return b + a\n\n\ndef twice(a):\n    return add(a, a)\n\n\ndef shout(s):\n    return six.ensure_str(s).upper()\n';
  const shout = await repo.pr(3, 'Shout bytes too, with six', {
    'requirements.txt': 'iniconfig==2.0.0\nsix==1.16.0\n',
    'tally/__init__.py': code,
    'tests/test_shout.py': 'import tally\n\n\ndef test_shout():\n    assert tally.shout(b"hi") == "HI"\n',
  });
  const thrice = await repo.pr(4, 'Add thrice', {
    'tally/__init__.py': `${code}\n\ndef thrice(a):\n    return a * 3\n`,
    'tests/test_thrice.py': 'import tally\n\n\ndef test_thrice():\n    assert tally.thrice(2) == 6\n',
  });
  // #5 drops six (its module imported it at the top, so nothing of the base imports without it) and tests shouting numbers.
  const noSix = await repo.pr(5, 'Shout without six', {
    'requirements.txt': 'iniconfig==2.0.0\n',
    'tally/__init__.py': code
      .replace('import six\n\n\n', '')
      .replace('six.ensure_str(s)', '(s.decode() if isinstance(s, bytes) else str(s))'),
    'tests/test_shout.py':
      'import tally\n\n\ndef test_shout():\n    assert tally.shout(b"hi") == "HI"\n\n\ndef test_shout_number():\n    assert tally.shout(7) == "7"\n',
  });
  const chain = repo.chain('gen/tally', [release, twice, shout, thrice, noSix]);
  const environments = testEnvironments(docker);
  const envs = [];
  for (const stage of [0, 1, 2, 3, 4]) envs.push(await environments.forStage(chain, stage));
  images.push(...envs.map((e) => e.image));
  const [first, second, third, fourth, fifth] = envs;
  // #1's base and #2's base differ in pyproject.toml (the version), not in what they resolve to.
  expect(second.image).toBe(first.image);
  // #3 adds six: its base runs on the base's resolution, runs after a change on its merge's, installed apart; #4's base resolves to the merge's.
  expect(third.image).not.toBe(first.image);
  expect(third.manifest.resolution?.packages.map((p) => p.name)).not.toContain('six');
  expect(third.manifest.resolution?.merged?.packages.map((p) => p.name)).toContain('six');
  expect(third.afterChangePath).toEqual(['/work/.venv-merge/bin']);
  expect(fourth.manifest.resolution?.packages).toEqual(third.manifest.resolution?.merged?.packages);
  expect(fourth.afterChangePath).toBeUndefined();
  expect(first.manifest.resolution?.packages.map((p) => p.name)).not.toContain('six');
  // A build per distinct resolution, each with the bytes its own layer adds.
  expect(environments.built.map((b) => b.image)).toEqual([first.image, third.image, fourth.image, fifth.image]);
  for (const b of environments.built) expect(b.layerBytes).toBeGreaterThan(0);

  // The PR that adds six is verified: its test fails at the base (no shout()) and passes after, in an environment that has six.
  const store = new ArtifactStore(join(dir, 'artifacts'));
  const gold = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 512, pidsLimit: 128 }, environments },
    chain,
    2,
  );
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['tests/test_shout.py::test_shout'] });

  // #5 drops six: at its base, with the base's six, its old test passes. Run at the base on the merge's
  // resolution (no six), the module would not import and that test would count as FAIL_TO_PASS too.
  const dropped = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 512, pidsLimit: 128 }, environments },
    chain,
    4,
  );
  expect(dropped).toMatchObject({ status: 'verified', failToPass: ['tests/test_shout.py::test_shout_number'] });
  expect(dropped.passToPass).toEqual(['tests/test_shout.py::test_shout']);
}, 900_000);
