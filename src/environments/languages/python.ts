import { DEPS_MOUNT, type LanguageRecipe, type RepoFiles } from '../contract';
import { requirementName, tomlKeys, tomlStrings, tomlTable } from './pyproject';
import { PYTHON_VERSION, pythonFetch } from './python-fetch';

/** The virtualenv a Python recipe makes; it sees the base image's packages (pytest) through system site-packages. */
export const VENV = '/work/.venv';

const SIGNALS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'pytest.ini', 'conftest.py', 'uv.lock'];
/** Requirement files a test run usually needs, below the root. */
const NESTED_REQUIREMENTS = ['requirements/tests.txt', 'requirements/test.txt', 'requirements/testing.txt', 'requirements/dev.txt', 'tests/requirements.txt'];
const TESTISH = /^(tests?|testing|dev)$/i;
const DOCS = /^docs?$|documentation|sphinx/i;
/** What the image's venv already has (Python 3.11's ensurepip): a build needing only these needs no fetch. */
const IN_VENV = new Set(['setuptools', 'wheel', 'pip']);

/**
 * Python projects: a venv on the base image's Python 3.11, with the project's dependencies (runtime,
 * extras, test groups and test requirement files) resolved on the host as of the manifests' date and
 * installed offline from the fetched wheels, then the project itself, editable and without its deps.
 * A project that declares nothing to install (beyond setuptools) needs no registry at all.
 */
export async function detectPython(files: RepoFiles): Promise<LanguageRecipe | undefined> {
  const has = (name: string) => files.rootFiles.has(name);
  const rootRequirements = [...files.rootFiles].filter((f) => /requirements[\w.-]*\.txt$/i.test(f) && !DOCS.test(f)).sort();
  const nested = (await Promise.all(NESTED_REQUIREMENTS.map(async (f) => ((await files.read(f)) === undefined ? undefined : f)))).filter((f): f is string => !!f);
  // Test requirement files where there are some, else development ones (which often pull in docs and linters too).
  const found = [...rootRequirements, ...nested];
  const testFiles = found.filter((f) => /test/i.test(f));
  const requirementFiles = found.filter((f) => !/test|dev/i.test(f)).concat(testFiles.length ? testFiles : found.filter((f) => /dev/i.test(f)));
  if (!requirementFiles.length && !SIGNALS.some(has)) return undefined;

  const pyproject = has('pyproject.toml') ? ((await files.read('pyproject.toml')) ?? '') : '';
  const project = tomlTable(pyproject, 'project');
  const extras = tomlKeys(tomlTable(pyproject, 'project.optional-dependencies'));
  const groups = tomlKeys(tomlTable(pyproject, 'dependency-groups'));
  const buildRequires = tomlStrings(tomlTable(pyproject, 'build-system'), 'requires') ?? [];
  const setupPy = has('setup.py') ? ((await files.read('setup.py')) ?? '') : '';
  const setupCfg = has('setup.cfg') ? ((await files.read('setup.cfg')) ?? '') : '';
  const installable = has('setup.py') || /^\[(project|build-system)\]/m.test(pyproject);
  const declaresDeps =
    (tomlStrings(project, 'dependencies')?.length ?? 0) > 0 ||
    extras.length > 0 ||
    groups.length > 0 ||
    /install_requires|tests_require|extras_require/.test(setupPy + setupCfg) ||
    /\bdependencies\s*=/.test(tomlTable(pyproject, 'tool.poetry.dependencies') ?? '') ||
    buildRequires.some((r) => !IN_VENV.has(requirementName(r)));
  const needsFetch = declaresDeps || requirementFiles.length > 0 || has('uv.lock');

  const sources = project ? ['pyproject.toml'] : has('setup.py') ? ['setup.py'] : has('setup.cfg') ? ['setup.cfg'] : [];
  const testExtras = extras.filter((e) => TESTISH.test(e));
  const nonDocExtras = extras.filter((e) => !DOCS.test(e));
  const testGroups = groups.filter((g) => TESTISH.test(g) && !/^dev$/i.test(g));
  const requiresPython = /^\s*requires-python\s*=\s*["']([^"']+)["']/m.exec(project ?? '')?.[1] ?? /python_requires\s*=\s*["']?([^"'\n,]+)/.exec(setupPy + setupCfg)?.[1];

  const pip = `${VENV}/bin/python -m pip install --quiet --disable-pip-version-check --no-index`;
  const setup = [`python3 -m venv --system-site-packages ${VENV}`];
  if (needsFetch) setup.push(`${pip} --find-links ${DEPS_MOUNT} -r ${DEPS_MOUNT}/requirements.txt`);
  if (installable) setup.push(`${pip} --no-build-isolation --no-deps -e .`);
  return {
    language: 'python',
    origin: installable ? 'python-package' : 'python-plain',
    toolchain: {
      image: 'python',
      version: PYTHON_VERSION,
      ...(requiresPython ? { note: `the project asks for Python ${requiresPython}; the image provides ${PYTHON_VERSION}` } : {}),
    },
    manifests: ['pyproject.toml', 'setup.py', 'setup.cfg', 'uv.lock'].filter(has).concat(requirementFiles),
    ...(needsFetch
      ? {
          fetch: pythonFetch({
            sources: [...sources, ...requirementFiles],
            // setup.py's extras cannot be read without running it: ask for all of them.
            extras: project ? nonDocExtras : has('setup.py') ? 'all' : [],
            testExtras,
            groups: testGroups.length ? testGroups : groups.filter((g) => /^dev$/i.test(g)),
            buildRequires,
            uvLock: has('uv.lock'),
          }),
        }
      : {}),
    setup,
    env: {},
    path: [`${VENV}/bin`],
    runner: 'pytest',
  };
}
