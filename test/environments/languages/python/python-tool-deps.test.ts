// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectPython, poetryPython } from '../../../../src/environments/languages/python/detect';
import {
  extrasNamed,
  requirementFilesNamed,
  toolTestRequirements,
} from '../../../../src/environments/languages/python/tool-deps';
import { docsFile } from '../../../../src/environments/languages/python/pyproject-declares';
import { parseToml, specifierAllows } from '../../../../src/environments/languages/python/pyproject';
import { python2File } from '../../../../src/environments/languages/python/resolver-inputs';

/**
 * `acme` (a package folder) with `files` beside it, detected as a worker detects it and fetched as of
 * mid-2023, in a directory of its own (removed after): the recipe and its resolution.
 */
async function detectAndFetch(files: Record<string, string>) {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-tool-deps-'));
  try {
    const src = join(root, 'src');
    await mkdir(join(src, 'acme'), { recursive: true });
    await writeFile(join(src, 'acme', '__init__.py'), '');
    for (const [name, text] of Object.entries(files)) await writeFile(join(src, name), text);
    const recipe = (await detectPython({
      rootFiles: new Set([...Object.keys(files), 'acme']),
      read: (p: string) => readFile(join(src, p), 'utf8').catch(() => undefined),
    }))!;
    const depsDir = join(root, 'deps');
    await mkdir(depsDir);
    const resolution = await recipe.fetch!({
      srcDir: src,
      depsDir,
      asOf: new Date('2023-06-01T00:00:00Z'),
      log: () => undefined,
      signal: new AbortController().signal,
    });
    return { recipe, resolution };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A Poetry project `acme` with no [project] table: its dependencies and its dev group's, one TOML line each. */
const poetryPyproject = (dependencies: string[], dev: string[]) =>
  [
    '[tool.poetry]',
    'name = "acme"',
    'version = "0.1.0"',
    'description = ""',
    'authors = ["A <a@example.test>"]',
    '',
    '[tool.poetry.dependencies]',
    'python = "^3.8"',
    ...dependencies,
    '',
    '[tool.poetry.group.dev.dependencies]',
    ...dev,
    '',
    '[build-system]',
    'requires = ["poetry-core>=1.0.0"]',
    'build-backend = "poetry.core.masonry.api"',
    '',
  ].join('\n');

test("test requirements kept in Poetry's, PDM's, Hatch's and tox's own tables are found", () => {
  const pyproject = `
[tool.poetry]
name = "acme"

[tool.poetry.dependencies]
python = "^3.8"
requests = "^2.28"

[tool.poetry.dev-dependencies]
pytest = "^7.0"
pytest-cov = {version = "^4", optional = false}
acme-testing = {path = "../acme-testing", develop = true}

[tool.poetry.group.test.dependencies]
pytest-asyncio = "^0.21"

[tool.poetry.group.docs.dependencies]
sphinx = "^6"

[tool.pdm.dev-dependencies]
test = ["hypothesis>=6", "freezegun"]
lint = ["ruff"]

[tool.hatch.envs.default]
dependencies = [
  "coverage[toml]>=6.5",
  "pytest-mock",
]
`;
  const tox = `[tox]
envlist = py38

[testenv]
deps =
    -r requirements/test.txt
    {[base]deps}
    mock>=4 ; python_version < "3.8"
    py27: pytest<5
    acme
    .
commands = pytest {posargs}

[testenv:lint]
deps = flake8
`;
  expect(toolTestRequirements(parseToml(pyproject), tox)).toEqual([
    'pytest',
    'pytest-cov',
    'pytest-asyncio',
    'hypothesis>=6',
    'freezegun',
    'coverage[toml]>=6.5',
    'pytest-mock',
    'mock>=4 ; python_version < "3.8"',
  ]);
  expect(toolTestRequirements(parseToml('[project]\nname = "x"\n'), '')).toEqual([]);
});

test('a Poetry project without a [project] table resolves through its build backend, with its dev group', async () => {
  const { recipe, resolution } = await detectAndFetch({
    'pyproject.toml': poetryPyproject(['six = "^1.16"'], ['pytest-cov = "^4"']),
  });
  expect(recipe.origin).toBe('python-package');
  const names = resolution.packages.map((p) => p.name.toLowerCase());
  // six from the Poetry table (through poetry-core), pytest-cov from the dev group, poetry-core to install it.
  expect(names).toEqual(expect.arrayContaining(['six', 'pytest-cov', 'coverage', 'poetry-core']));
  expect(resolution.notes).toContain(
    "test requirements from the project's tool tables (Poetry, PDM, Hatch, tox): pytest-cov",
  );
}, 300_000);

test("Poetry's python constraint keeps its upper bound when it becomes a PEP 440 specifier, and a union its every part", () => {
  expect(['^3.8', '~3.7', '^3', '>=3.8,<3.12', '~=3.8', '*', undefined].map(poetryPython)).toEqual([
    '>=3.8,<4',
    '>=3.7,<3.8',
    '>=3.0,<4',
    '>=3.8,<3.12',
    '~=3.8',
    undefined,
    undefined,
  ]);
  const union = poetryPython('~2.7 || ^3.4')!;
  expect(union).toBe('>=2.7,<2.8 || >=3.4,<4');
  expect(['2.7', '3.3', '3.8', '4.0'].map((v) => specifierAllows(union, v))).toEqual([true, false, true, false]);
  expect(poetryPython('2.7.* | >=3.5')).toBe('2.7.* || >=3.5');
});

test("the requirement files tox's [testenv] and nox's test sessions install by -r are found, whatever their names", () => {
  const tox = `[testenv]
deps =
    -r{toxinidir}/requirements/ci.txt
    --requirement=./constraints/pytest-deps.txt
    py38: -r requirements/py38.txt
    -r {env:REQS}
commands = pytest

[testenv:lint]
deps = -r requirements/lint.txt
`;
  const nox = `import nox


@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install("-r", "requirements/pytest.txt", "-rci/extra.txt")
    session.install(".")
    session.run("pytest", "-rxs")


@nox.session
def lint(session):
    session.install("-r", "requirements/lint.txt")
`;
  expect(requirementFilesNamed(tox, nox)).toEqual([
    'requirements/ci.txt',
    'constraints/pytest-deps.txt',
    'requirements/pytest.txt',
    'ci/extra.txt',
  ]);
  expect(requirementFilesNamed('', '')).toEqual([]);
});

test('requirement files named for Python 2 are told apart from the others, whatever the spelling', () => {
  const names = [
    'requirements26.txt',
    'requirements-py27.txt',
    'requirements_python2.txt',
    'py2-requirements.txt',
    'requirements/py2.7.txt',
    'requirements.txt',
    'requirements-py3.txt',
    'requirements-py312.txt',
    'requirements-2023.txt',
    'test-requirements.txt',
  ];
  expect(names.filter(python2File)).toEqual(names.slice(0, 5));
});

/** jmespath.py of 2013 kept Python 2.6's requirements (unittest2 0.5.1, Python 2 code) in requirements26.txt beside its others. */
test('a requirement file named for Python 2 is not resolved for the stage, its other requirement files are', async () => {
  const { resolution } = await detectAndFetch({
    'setup.py': 'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"])\n',
    'requirements.txt': 'six\n',
    'requirements26.txt': 'chainsmith-no-such-python2-package\n',
  });
  expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
}, 300_000);

test("the extras tox's [testenv] and nox's test sessions install are found, and docs' requirement files by any part of their name", () => {
  const tox = `[testenv]
extras = tests, yaml
    py27: legacy
    py{36,37,38}-crypto-{linux,windows}: crypto
commands = pytest

[testenv:docs]
extras = docs
`;
  const nox = `@nox.session
def tests(session):
    session.install("-e", ".[testing,toml]")


@nox.session
def docs(session):
    session.install(".[docs]")
`;
  expect(extrasNamed(tox, '')).toEqual({ named: ['tests', 'yaml'], forSome: ['legacy', 'crypto'] });
  expect(extrasNamed('', nox)).toEqual({ named: ['testing', 'toml'], forSome: [] });
  expect(extrasNamed('[testenv]\ndeps = pytest\n', '')).toEqual({ named: [], forSome: [] });
  expect(
    [
      'docs-requirements.txt',
      'requirements-doc.txt',
      'requirements/docs.txt',
      'requirements-rtd.txt',
      'rtd_requirements.txt',
      'readthedocs-requirements.txt',
      'dev-requirements.txt',
      'requirements.txt',
      'requirements-tests.txt',
    ].map(docsFile),
  ).toEqual([true, true, true, true, true, true, false, false, false]);
});

/**
 * A setup.py project (its extras unreadable without running it) whose tox runs install its `tests` extra,
 * beside a docs extra and a docs requirement file that do not resolve (old Sphinx stacks often no longer
 * build): the resolution holds the tests' extra and leaves documentation out.
 */
test('a setup.py project resolves the extras its tox runs install, without its documentation requirements', async () => {
  const { resolution } = await detectAndFetch({
    'setup.py':
      'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"], extras_require={"docs": ["chainsmith-no-such-docs-package"], "tests": ["six"]})\n',
    'docs-requirements.txt': 'chainsmith-no-such-docs-package\n',
    'tox.ini': '[testenv]\nextras = tests\ncommands = pytest\n',
  });
  expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
}, 300_000);

/**
 * Beside its test requirement file, a requirement file of another purpose (a linters' one pinning what
 * no index serves): the whole set does not resolve, and the project resolves with its test files alone.
 */
/**
 * tox installs an extra in some environments only (a suite run with and without an optional dependency): the
 * resolution holds it, so the tests that need it run; one that does not resolve for the stage is left out.
 */
test('an extra tox installs for some environments only is resolved, and left out where it does not resolve', async () => {
  const setupPy = (legacy: string) =>
    `from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"], extras_require={"tests": ["six"], "crypto": ["idna"], "legacy": ["${legacy}"]})\n`;
  const tox =
    '[testenv]\nextras =\n    tests\n    py{38,39}-crypto-{linux,windows}: crypto\n    py27: legacy\ncommands = pytest\n';
  const resolved = await detectAndFetch({ 'setup.py': setupPy('six'), 'tox.ini': tox });
  expect(resolved.resolution.packages.map((p) => p.name.toLowerCase())).toEqual(
    expect.arrayContaining(['six', 'idna']),
  );
  const unresolvable = await detectAndFetch({ 'setup.py': setupPy('chainsmith-no-such-package'), 'tox.ini': tox });
  expect(unresolvable.resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
}, 300_000);

test("a requirement file that does not resolve and is not the tests' leaves the test requirements resolved", async () => {
  const { resolution } = await detectAndFetch({
    'setup.py': 'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"])\n',
    'requirements-test.txt': 'six\n',
    'requirements-lint.txt': 'chainsmith-no-such-lint-package==1.0\n',
  });
  expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
  expect(resolution.notes).toContainEqual(expect.stringContaining('requirements-lint.txt do not resolve'));
}, 300_000);

/**
 * A Poetry project whose tox runs name `dev` as an extra, where dev is a Poetry group (its requirements
 * come from the tool table): uv has no such extra, and the resolution is asked again without it.
 */
test("an extra the test runs name that the project does not declare is left out, not the stage's resolution", async () => {
  const { resolution } = await detectAndFetch({
    'pyproject.toml': poetryPyproject([], ['six = "^1.16"']),
    'tox.ini': '[tox]\nisolated_build = true\n\n[testenv]\nextras = dev\ncommands = pytest tests\n',
  });
  expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
  expect(resolution.notes).toContainEqual(expect.stringContaining('declares no extra dev'));
}, 300_000);

/** uv names several undeclared extras at once ("Requested extras not found: dev, lint"): all of them are left out. */
test('several extras the project does not declare are left out together', async () => {
  const { resolution } = await detectAndFetch({
    'pyproject.toml': poetryPyproject([], ['six = "^1.16"']),
    'tox.ini': '[tox]\nisolated_build = true\n\n[testenv]\nextras = dev, lint\ncommands = pytest tests\n',
  });
  expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
  expect(resolution.notes).toContainEqual(expect.stringContaining('declares no extra dev, lint'));
}, 300_000);
