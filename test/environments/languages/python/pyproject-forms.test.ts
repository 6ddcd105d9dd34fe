// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectPython } from '../../../../src/environments/languages/python/detect';
import { pyprojectDeclares } from '../../../../src/environments/languages/python/pyproject-declares';
import { toolTestRequirements } from '../../../../src/environments/languages/python/tool-deps';
import { StageError } from '../../../../src/errors';

// Ordinary TOML that a header-line and regex reading got wrong: each form below is one such case.

const declares = (text: string) => {
  const d = pyprojectDeclares(text);
  return {
    project: d.project,
    dependencies: d.dependencies,
    extras: Object.fromEntries(d.extras),
    groups: Object.fromEntries(d.groups),
    buildRequires: d.buildRequires,
    requiresPython: d.requiresPython,
  };
};

const files = (pyproject: string) => ({
  rootFiles: new Set(['pyproject.toml']),
  read: async (p: string) => (p === 'pyproject.toml' ? pyproject : undefined),
});
const era = {
  provided: [{ version: '3.9', prefix: '/nonexistent/python3.9' }],
  baseDate: async () => new Date('2025-01-01'),
};

test('dotted keys at the top level make the [project] and [build-system] tables', async () => {
  const text = [
    'project.name = "acme"',
    'project.requires-python = ">=3.9,<3.10"',
    'project.dependencies = ["requests>=2"]',
    'project.optional-dependencies.test = ["pytest-cov"]',
    'build-system.requires = ["hatchling"]',
    'build-system.build-backend = "hatchling.build"',
  ].join('\n');
  expect(declares(text)).toEqual({
    project: true,
    dependencies: ['requests>=2'],
    extras: { test: ['pytest-cov'] },
    groups: {},
    buildRequires: ['hatchling'],
    requiresPython: '>=3.9,<3.10',
  });
  // The recipe installs the project from its pyproject.toml, on the one Python it allows.
  const recipe = (await detectPython(files(text), undefined, era))!;
  expect(recipe.origin).toBe('python-package');
  expect(recipe.toolchain.version).toBe('3.9');
});

test("Poetry's tables written as dotted keys under [tool]: its python constraint and test group", async () => {
  const text = [
    '[tool]',
    'poetry.name = "acme"',
    'poetry.dependencies = { python = "~3.9", requests = "^2.28" }',
    'poetry.group.test.dependencies = { pytest-asyncio = "^0.21", acme-testing = { path = "../testing" } }',
    '',
    '[build-system]',
    'requires = ["poetry-core"]',
  ].join('\n');
  const d = pyprojectDeclares(text);
  expect([d.poetryDependencies, d.poetryPython, d.backendMetadata]).toEqual([true, '~3.9', true]);
  // A path dependency is no registry package.
  expect(toolTestRequirements(d.doc, '')).toEqual(['pytest-asyncio']);
  // Poetry's ~3.9 is >=3.9,<3.10: the host's 3.9, not the image's 3.11.
  expect((await detectPython(files(text), undefined, era))!.toolchain.version).toBe('3.9');
});

test('inline tables hold extras and dependency groups', () => {
  const text = [
    'dependency-groups = { tests = ["pytest-xdist", { include-group = "typing" }], typing = ["mypy"] }',
    '',
    '[project]',
    'name = "acme"',
    'dependencies = []',
    'optional-dependencies = { test = ["pytest-mock"], docs = ["sphinx"] }',
  ].join('\n');
  expect(declares(text)).toMatchObject({
    extras: { test: ['pytest-mock'], docs: ['sphinx'] },
    // PEP 735: a group that includes another needs that one's requirements too.
    groups: { tests: ['pytest-xdist', 'mypy'], typing: ['mypy'] },
  });
});

test('headers with spaces, quotes or comments, and quoted keys, name the same tables', () => {
  const text = [
    '[ project ]  # the package',
    'name = "acme"',
    '"requires-python" = ">=3.10"',
    "dependencies = ['attrs']",
    '',
    '[project . "optional-dependencies"]',
    "'test' = ['pytest-timeout']",
    '',
    '[ "dependency-groups" ] # PEP 735',
    'dev = ["ruff"]',
    '',
    '[ build-system ]',
    'requires = ["flit_core<4"]',
    '',
    '[tool.hatch.envs."test"]  # the test environment',
    'dependencies = ["pytest-randomly"]',
    '',
    '[[tool.hatch.envs.test.matrix]]',
    'python = ["3.10", "3.11"]',
  ].join('\n');
  expect(declares(text)).toEqual({
    project: true,
    dependencies: ['attrs'],
    extras: { test: ['pytest-timeout'] },
    groups: { dev: ['ruff'] },
    buildRequires: ['flit_core<4'],
    requiresPython: '>=3.10',
  });
  expect(toolTestRequirements(pyprojectDeclares(text).doc, '')).toEqual(['pytest-randomly']);
});

test('literal, multi-line and escaped strings are read as their values', async () => {
  const text = [
    '[project]',
    'name = "acme"',
    "requires-python = '''>=3.9,<3.10'''",
    'dependencies = [',
    '  """MarkupSafe>=2.0""",',
    '  "pywin32; sys_platform == \\"win32\\"",',
    '  \'tomli; python_version < "3.11"\',',
    ']',
  ].join('\n');
  expect(declares(text)).toMatchObject({
    requiresPython: '>=3.9,<3.10',
    dependencies: ['MarkupSafe>=2.0', 'pywin32; sys_platform == "win32"', 'tomli; python_version < "3.11"'],
  });
  expect((await detectPython(files(text), undefined, era))!.toolchain.version).toBe('3.9');
});

test("PDM's and Poetry's test requirements: arrays of inline tables, a path dependency among them left out", () => {
  const text = [
    '[project]',
    'name = "acme"',
    '',
    '[tool.pdm.dev-dependencies]',
    'test = [',
    '  "hypothesis>=6",  # property tests',
    '  "-e file:///${PROJECT_ROOT}/plugins/acme-plugin",',
    ']',
    '',
    '[tool.poetry.group.dev.dependencies]',
    'pytest = [{ version = "<8", python = "<3.8" }, { version = ">=8", python = ">=3.8" }]',
    'acme-testing = [{ path = "../testing", python = ">=3.8" }]',
  ].join('\n');
  expect(toolTestRequirements(pyprojectDeclares(text).doc, '')).toEqual(['pytest', 'hypothesis>=6']);
});

test('a pyproject.toml that is not TOML goes to the resolver as it is, whose failure is the stage reason, not a crash', async () => {
  const text = '[project\nname = "acme"\ndependencies = ["six"]\n';
  expect(pyprojectDeclares(text)).toMatchObject({ unreadable: true, project: false, dependencies: [] });
  const recipe = (await detectPython(files(text)))!;
  expect(recipe.origin).toBe('python-package');
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bad-toml-'));
  try {
    const src = join(root, 'src');
    const depsDir = join(root, 'deps');
    await mkdir(src);
    await mkdir(depsDir);
    await writeFile(join(src, 'pyproject.toml'), text);
    const fetched = recipe.fetch!({
      srcDir: src,
      depsDir,
      asOf: new Date('2024-06-01T00:00:00Z'),
      log: () => undefined,
      signal: new AbortController().signal,
    });
    await expect(fetched).rejects.toBeInstanceOf(StageError);
    await expect(fetched).rejects.toMatchObject({ reason: { kind: 'dependencies-unresolvable' } });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 300_000);
