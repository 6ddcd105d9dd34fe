import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../../../src/environments/builder';
import type { PullRequest } from '../../../../src/schemas';
import { declaredText } from '../../../../src/environments/languages/python/declarations';
import { ChainRepo } from '../../../support/chain-repo';
import { missingPythons, testIf } from '../../../support/preconditions';
import { testEnvironments } from '../../../support/environments';
import { removeImages } from '../../../support/containers';
import { ciWorkflow, TALLY_PYPROJECT } from '../../../support/python-project';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const code = (n: number) => `def add(a, b):\n    return a + b + ${n} - ${n}\n`;
const testFile = (n: number) =>
  `from tally import add\n\n\ndef test_add_${n}():\n    assert add(${n}, 1) == ${n + 1}\n`;
const versions = (env: Environment, merged = false) =>
  ((merged ? env.manifest.resolution?.merged?.packages : env.manifest.resolution?.packages) ?? []).map(
    (p) => `${p.name}@${p.version}`,
  );

test('what a Python manifest declares leaves out tool configuration, project prose and tox beyond its deps', () => {
  const pyproject = (extra: string, deps = '"markupsafe>=2"') =>
    `[project]\nname = "x"\nversion = "1.0"\ndescription = "X"\nclassifiers = [\n  "Programming Language :: Python :: 3.12",${extra}\n]\ndependencies = [${deps}]\n\n[project.urls]\nDocs = "https://x.test/${extra.length}"\n\n[tool.ruff]\nline-length = ${80 + extra.length}\n\n[tool.poetry.group.dev.dependencies]\npytest = "*"\n`;
  expect(declaredText('pyproject.toml', pyproject(''))).toBe(
    declaredText('pyproject.toml', pyproject('\n  "Programming Language :: Python :: 3.13",')),
  );
  expect(declaredText('pyproject.toml', pyproject(''))).not.toBe(
    declaredText('pyproject.toml', pyproject('', '"markupsafe>=3"')),
  );
  // A table it does not know stays: Poetry's groups are read for test requirements.
  expect(declaredText('pyproject.toml', pyproject(''))).toContain('pytest = "*"');
  const cfg = (flake8: string, requires = 'MarkupSafe>=2.0') =>
    `[metadata]\nname = Jinja2\nversion = attr: jinja2.__version__\nproject_urls =\n    Docs = https://x.test\n\n[options]\npython_requires = >= 3.6\ninstall_requires =\n    ${requires}\n\n[flake8]\nselect = ${flake8}\n\n[mypy]\nstrict = True\n`;
  expect(declaredText('setup.cfg', cfg('B, E'))).toBe(declaredText('setup.cfg', cfg('B, E, W')));
  expect(declaredText('setup.cfg', cfg('B, E'))).not.toBe(declaredText('setup.cfg', cfg('B, E', 'MarkupSafe>=2.1')));
  const tox = (envlist: string, deps: string) =>
    `[tox]\nenvlist = ${envlist}\n\n[testenv]\ndeps = -r requirements/tests.txt\n    ${deps}\ncommands = pytest {posargs}\n`;
  expect(declaredText('tox.ini', tox('py3{9,8,7,6}', 'trio'))).toBe(
    declaredText('tox.ini', tox('py3{10,9,8,7}', 'trio')),
  );
  expect(declaredText('tox.ini', tox('py3{9,8}', 'trio'))).not.toBe(
    declaredText('tox.ini', tox('py3{9,8}', 'trio>=0.20')),
  );
});

/**
 * A Python project whose CI tests on 3.8–3.11 (host Pythons copied into toolchain images, pytest
 * fetched from the registry the host's pip is configured for). Over 2024 its CI adds 3.12 and drops
 * 3.8, and its requirements change twice: in its first quarter to a range what was out at the
 * quarter's start satisfies, then to a pin of a pytest released that quarter.
 */
testIf(missingPythons(['3.8', '3.12']))(
  'stages whose tested Pythons and declarations admit one environment share it; a dropped minor or a pin released since moves to another',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-sharing-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': TALLY_PYPROJECT,
        'requirements.txt': 'iniconfig==2.0.0\n',
        '.github/workflows/tests.yml': ciWorkflow(['3.8', '3.9', '3.10', '3.11']),
        'tally/__init__.py': code(0),
        'tests/test_add.py': testFile(0),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2024-01-05T00:00:00Z'),
    );
    const prs: PullRequest[] = [];
    const step = async (n: number, date: string, title: string, more: Record<string, string> = {}) => {
      repo.at(new Date(`${date}T00:00:00Z`));
      prs.push(await repo.pr(n, title, { 'tally/__init__.py': code(n), [`tests/test_${n}.py`]: testFile(n), ...more }));
    };
    await step(1, '2024-01-20', 'Add one');
    await step(2, '2024-03-05', 'Any iniconfig 2', { 'requirements.txt': 'iniconfig>=2\n' });
    await step(3, '2024-03-20', 'Add three');
    await step(4, '2024-06-10', 'Test on 3.12', {
      '.github/workflows/tests.yml': ciWorkflow(['3.8', '3.9', '3.10', '3.11', '3.12']),
    });
    await step(5, '2024-06-20', 'Add five');
    await step(6, '2024-08-01', 'Drop 3.8', {
      '.github/workflows/tests.yml': ciWorkflow(['3.9', '3.10', '3.11', '3.12']),
    });
    await step(7, '2024-08-10', 'Add seven');
    await step(8, '2024-09-10', 'Pin pytest 8.3.2', { 'requirements.txt': 'iniconfig>=2\npytest==8.3.2\n' });
    await step(9, '2024-09-20', 'Add nine');
    const chain = repo.chain('gen/tally-sharing', prs);
    const environments = testEnvironments(docker, {}, join(dir, 'data'));
    const envs: Environment[] = [];
    for (const stage of prs.keys()) envs.push(await environments.forStage(chain, stage));
    images.push(...envs.map((e) => e.image));
    const minors = envs.map((e) => e.recipe.toolchain.version);

    // 3.8 is tested from the first stage to the sixth: the roundest of 3.8–3.11 and of 3.8–3.12, where
    // the newest would have moved from 3.11 to 3.12. The requirements' change on 2024-03-05 resolves as of
    // the quarter's start, as the first did: #2's merge and #3's base hold the same packages.
    expect(minors).toEqual(['3.8', '3.8', '3.8', '3.8', '3.8', '3.8', '3.12', '3.12', '3.12']);
    for (const env of envs.slice(1, 6)) expect(env.image).toBe(envs[0].image);
    expect(envs[0].manifest.toolchain.version).toMatch(/^Python 3\.8\./);
    expect(envs[0].recipe.fallback?.toolchain.version).toBe('3.11');
    expect(envs[4].recipe.fallback?.toolchain.version).toBe('3.12');
    expect(versions(envs[0])).toEqual(expect.arrayContaining(['iniconfig@2.0.0', 'pytest@7.4.4']));
    expect(envs[0].manifest.resolution?.notes.join('\n')).toMatch(
      /resolved as of 2024-01-01, the start of the quarter/,
    );
    expect(envs[1].manifest.resolution?.merged).toBeUndefined();

    // Once 3.8 is dropped, the roundest left is 3.12: another interpreter, another environment.
    expect(envs[6].image).not.toBe(envs[0].image);
    // #8 pins a pytest released after its quarter began: its merge resolves as of its own day, so the PR's
    // tests run after the change with the pin they ask for; its base keeps #7's packages.
    expect(versions(envs[7])).toEqual(versions(envs[6]));
    expect(versions(envs[7], true)).toContain('pytest@8.3.2');
    expect(envs[7].afterChangePath).toEqual(['/work/.venv-merge/bin']);
    expect(versions(envs[8])).toContain('pytest@8.3.2');
    expect(envs[8].manifest.resolution?.notes.join('\n')).toMatch(/do not resolve as of 2024-07-01/);
    expect(environments.built.map((b) => b.image)).toEqual([
      envs[0].image,
      envs[6].image,
      envs[7].image,
      envs[8].image,
    ]);
  },
  1_800_000,
);

/** pluggy 1.6.0 (May 2025) needs Python 3.9: a project that tests on 3.8–3.12 and pins it gets its newest, 3.12. */
testIf(missingPythons(['3.8', '3.12']))(
  'a stage whose resolution needs a newer Python than the roundest it tests on is built on the newest',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-py-newer-'));
    const repo = await ChainRepo.create(
      join(dir, 'tally'),
      {
        'pyproject.toml': TALLY_PYPROJECT,
        'requirements.txt': 'pluggy==1.6.0\n',
        '.github/workflows/tests.yml': ciWorkflow(['3.8', '3.9', '3.10', '3.11', '3.12']),
        'tally/__init__.py': code(0),
        'tests/test_add.py': testFile(0),
        NONCE: randomBytes(8).toString('hex'),
      },
      new Date('2025-06-10T00:00:00Z'),
    );
    const pr = await repo.pr(1, 'Add one', { 'tally/__init__.py': code(1), 'tests/test_1.py': testFile(1) });
    const environments = testEnvironments(docker, {}, join(dir, 'data'));
    const chain = repo.chain('gen/tally-newer', [pr]);
    expect((await environments.recipeFor(chain, 0)).toolchain.version).toBe('3.8');
    const env = await environments.forStage(chain, 0);
    images.push(env.image);
    expect(env.recipe.toolchain.version).toBe('3.12');
    expect(env.manifest.toolchain.version).toMatch(/^Python 3\.12\./);
    expect(versions(env)).toContain('pluggy@1.6.0');
  },
  900_000,
);
