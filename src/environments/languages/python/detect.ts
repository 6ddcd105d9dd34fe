import { DEPS_MOUNT, SETUP_WARNING, type LanguageRecipe, type RepoFiles } from '../../contract';
import { requirementName } from './pyproject';
import { pyprojectDeclares, TESTISH, type PyprojectDeclares } from './pyproject-declares';
import { requirementFilesOf } from './resolver-inputs';
import { pythonFetch, pythonFetchRevision, TOO_OLD_PYTHON, UV_IN_DEPS, uvInstalls } from './fetch';
import { toolTestRequirements } from './tool-deps';
import { convertsPython2 } from './python2-build';
import { setupRequires } from './setup-requires';
import { declaredText } from './declarations';
import { choosePython, type PythonChoice, type PythonEra } from './versions';
import { bundledPip } from './wheel-tags';
import { editableInstall } from './editable';
import { installPytestPlugins } from './pytest-plugins';
import { pipInstall } from './pip-install';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type PythonRecipe = LanguageRecipe<'python', 'pytest', 'python'>;

/** The virtualenv a Python recipe makes; on the base image's Python it sees Debian's packages (pytest) through system site-packages. */
export const VENV = '/work/.venv';
/** The venv of what the PR's merge resolves to, where it differs from the base's: test runs after a change use it. */
export const MERGED_VENV = '/work/.venv-merge';

const SIGNALS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'tox.ini', 'pytest.ini', 'conftest.py', 'uv.lock'];
/**
 * What the base image already has (Debian's pytest, seen through the venv's system site-packages, and
 * the venv's own pip and setuptools): a project declaring only these needs no fetch (the demo's
 * `test = ["pytest>=7"]`), whatever versions it names.
 */
const IN_IMAGE = new Set(['setuptools', 'wheel', 'pip', 'pytest']);
/**
 * What a build backend asks for beyond its build requirements to install a project editable (PEP 660's
 * get_requires_for_build_editable), where that is more: hatchling's and pdm's editable wheels import `editables`.
 * The project is installed without build isolation, so nothing else would bring it.
 */
const EDITABLE_REQUIRES: Record<string, string[]> = {
  'hatchling.build': ['editables'],
  'pdm.backend': ['editables'],
  'pdm.pep517.api': ['editables'],
};

/**
 * Python projects: a venv on the Python of the stage's era (versions.ts: the base image's 3.11
 * or one the host provides), with the project's dependencies (runtime, extras, test groups and test
 * requirement files) resolved on the host for that Python as of the date its dependency declarations
 * last changed (declarations-date.ts) and installed offline from the fetched wheels, then the project
 * itself, editable and without its deps. The fetched requirements are installed as resolved, without
 * their dependencies resolved again: they are all there but the project itself, which a committed
 * lock leaves out and a package among them may depend on (a test tool that needs the library under
 * test: hypothesis needs attrs, pytest pluggy). A project on the base image's Python that declares
 * nothing to install (beyond setuptools) needs no registry at all.
 */
export async function detectPython(
  files: RepoFiles,
  merged?: RepoFiles,
  era?: PythonEra,
): Promise<PythonRecipe | undefined> {
  const has = (name: string) => files.rootFiles.has(name);
  const { requirementFiles } = await requirementFilesOf(files);
  if (!requirementFiles.length && !SIGNALS.some(has)) return undefined;

  const pyproject = pyprojectDeclares(has('pyproject.toml') ? ((await files.read('pyproject.toml')) ?? '') : '');
  const { project, unreadable, buildRequires } = pyproject;
  const extras = [...pyproject.extras.keys()];
  const groups = [...pyproject.groups.keys()];
  const setupPy = has('setup.py') ? ((await files.read('setup.py')) ?? '') : '';
  const setupCfg = has('setup.cfg') ? ((await files.read('setup.cfg')) ?? '') : '';
  const installable = has('setup.py') || project || pyproject.buildSystem || unreadable;
  const declared = [
    ...pyproject.dependencies,
    ...extras.flatMap((e) => pyproject.extras.get(e) ?? [`unreadable extra ${e}`]),
    ...groups.flatMap((g) => pyproject.groups.get(g) ?? [`unreadable group ${g}`]),
    ...buildRequires,
  ];
  const declaresDeps =
    unreadable ||
    declared.some((r) => !IN_IMAGE.has(requirementName(r))) ||
    /install_requires|tests_require|extras_require|setup_requires/.test(setupPy + setupCfg) ||
    pyproject.poetryDependencies;
  const prAdds = merged ? await addedTestRequirements(files, merged) : [];
  const toxIni = has('tox.ini') ? ((await files.read('tox.ini')) ?? '') : '';
  const declaredNames = new Set(declared.map(requirementName));
  const toolDeps = toolTestRequirements(pyproject.doc, toxIni).filter((r) => !declaredNames.has(requirementName(r)));
  const requiresPython = requiresPythonOf(pyproject, setupPy + setupCfg);
  // A merge that changes requires-python (raises it past the base's Python) must import on the Python chosen too.
  const mergeRequires = merged && (await requiresPythonAt(merged));
  const needsPackages =
    declaresDeps ||
    requirementFiles.length > 0 ||
    has('uv.lock') ||
    prAdds.length > 0 ||
    toolDeps.some((r) => !IN_IMAGE.has(requirementName(r)));
  const python = choosePython(
    era?.provided ?? [],
    requiresPython,
    era ? await era.baseDate() : new Date(),
    !needsPackages,
    (await era?.tested?.()) ?? [],
    mergeRequires !== requiresPython ? mergeRequires : undefined,
  );

  // The pip that fills the venvs uv does not (before 3.8), by minor: the wheels the fetch may take for it.
  // One whose version is not found is taken for the oldest (manylinux1 wheels, or the sdist).
  const installerPips = new Map<string, string>();
  for (let p: PythonChoice | undefined = python; p; p = p.newer)
    if (!uvInstalls(p.version))
      installerPips.set(p.version, (p.prefix && (await bundledPip(p.prefix, p.version))) || '0');

  // The Python chosen, and where it is an older one than the project tests on, the newest as its fallback.
  const recipeOn = (python: PythonChoice): PythonRecipe => {
    // A host Python has no Debian pytest to see: pytest is fetched with the rest.
    const testTooling = python.prefix ? ['pytest'] : [];
    const needsFetch = needsPackages || testTooling.length > 0;
    const venvSetup = (venv: string, deps: string) => {
      // pip before 19 (Python 3.6's own, 18.1) fails on PIP_NO_CACHE_DIR=1, which the build exports (TypeError: expected str ... not int): the flag instead.
      // Never quiet: a pip before 20 that is hides why a setup.py failed (a compiler's error: its exit code alone).
      const pip = `env -u PIP_NO_CACHE_DIR ${venv}/bin/python -m pip install --disable-pip-version-check --no-cache-dir --no-index`;
      const interpreter = python.prefix ? `${python.prefix}/bin/python3` : 'python3';
      const lines =
        needsFetch && uvInstalls(python.version)
          ? uvVenv(interpreter, venv, deps)
          : [
              `${interpreter} -m venv --system-site-packages ${venv}`,
              ...(needsFetch ? pipInstall(pip, `${venv}/bin/python`, deps) : []),
            ];
      // pytest plugins (pytest-plugins.ts): runs end with their session and keep what they compile.
      lines.push(installPytestPlugins(`${venv}/bin/python`));
      if (installable) lines.push(...editableInstall(pip, `${venv}/bin/python`, pyproject.buildBackend));
      // Installed without their dependencies, nothing checked that they are consistent: pip check says, in the build log.
      if (needsFetch)
        lines.push(
          `complaint=$(env -u PIP_NO_CACHE_DIR ${venv}/bin/python -m pip check 2>&1) || echo "$complaint" | sed 's|^|${SETUP_WARNING} pip check in ${venv} (not a failure): |'`,
        );
      return lines;
    };
    const setup = venvSetup(VENV, DEPS_MOUNT);
    return {
      language: 'python',
      origin: installable ? 'python-package' : 'python-plain',
      toolchain: {
        image: 'python',
        version: python.version,
        note: python.note,
        ...(python.prefix ? { prefix: python.prefix } : {}),
      },
      manifests: ['pyproject.toml', 'setup.py', 'setup.cfg', 'uv.lock', ...(toxIni ? ['tox.ini'] : [])]
        .filter(has)
        .concat(requirementFiles),
      ...(needsFetch
        ? {
            fetch: pythonFetch({
              buildRequires: [
                ...buildRequires,
                ...setupRequires(setupPy, setupCfg),
                ...((installable && EDITABLE_REQUIRES[pyproject.buildBackend ?? '']) || []),
              ],
              testTooling,
              python: python.version,
              uvLock: has('uv.lock'),
              prAdds,
              toolDeps,
              ...(python.newer ? { newerPython: python.newer.version } : {}),
              ...(installerPips.has(python.version) ? { installerPip: installerPips.get(python.version) } : {}),
              ...(python.prefix ? { interpreter: `${python.prefix}/bin/python3` } : {}),
            }),
            ...(prAdds.length ? { prAdds } : {}),
            fetchRevision: pythonFetchRevision(python.version),
            // Ranges: the base runs on its own resolution, runs after a change on the merge's (a PR may remove or cap a dependency).
            withMerged: 'separate' as const,
            mergedSetup: venvSetup(MERGED_VENV, `${DEPS_MOUNT}/merged`),
            mergedPath: [`${MERGED_VENV}/bin`],
            dependencyText: declaredText,
          }
        : {}),
      setup,
      env: {},
      path: [`${VENV}/bin`],
      runner: 'pytest',
      unsupported: convertsPython2,
      ...(python.newer
        ? {
            fallback: recipeOn(python.newer),
            // pip in the build: a package (fetched in an earlier process, before the fetch could tell) that needs a newer Python.
            tooOld: TOO_OLD_PYTHON,
          }
        : {}),
    };
  };
  return recipeOn(python);
}

/**
 * A venv filled by the uv the fetch left in the dependency directory (fetch.ts, UV_IN_DEPS) instead of
 * ensurepip and pip: the same wheels, the same pip, the same files (uv adds its own dist-info notes).
 * Profiled on Jinja's 3.8 venv (one CPU, cgroup CPU): `python -m venv` 4.3–5.3 CPU-s (ensurepip runs
 * pip from its wheel, compiling it on every import, to install pip and a setuptools the pinned one then
 * replaces), pip's install of 12 wheels 3.7 s; here 0.2 s, the 12 wheels 3.0 s (byte-compiled as pip
 * compiles them) and pip's wheel 0.75 s. pip is the one ensurepip would have installed (its wheel
 * from the interpreter's `ensurepip/_bundled`, or Debian's python-wheels), or the requirements' own
 * where they pin one, as before; where no such wheel is found, ensurepip installs it as before.
 * pip alone is not byte-compiled (1.7 CPU-s a venv): test runs never import it; a pip run in the
 * sandbox (the project's editable install below, an agent's) compiles what it imports in memory,
 * about 0.3 s a run. That is work left out, not shared.
 */
function uvVenv(interpreter: string, venv: string, deps: string): string[] {
  const uv = `${deps}/${UV_IN_DEPS} pip install --python ${venv}/bin/python --offline --no-index --no-cache --quiet`;
  const bundled = `$(${interpreter} -c 'import ensurepip,os;print(os.path.dirname(ensurepip.__file__))')/_bundled`;
  return [
    `${interpreter} -m venv --system-site-packages --without-pip ${venv}`,
    `${uv} --compile-bytecode --no-deps --find-links ${deps} -r ${deps}/requirements.txt`,
    // Last, so that no later install byte-compiles it (uv compiles the whole of site-packages); where the requirements pinned a pip, that one stays.
    `if ! ls -d ${venv}/lib/python*/site-packages/pip-*.dist-info >/dev/null 2>&1; then ` +
      `v=$(${interpreter} -m ensurepip --version | cut -d' ' -f2); w=$(ls ${bundled}/pip-$v-*.whl /usr/share/python-wheels/pip-$v-*.whl 2>/dev/null | head -n1 || true); ` +
      `if [ -n "$w" ]; then ${uv} --find-links "$(dirname "$w")" "pip==$v"; else ${venv}/bin/python -m ensurepip --default-pip; fi; fi`,
  ];
}

/** The Python versions a project's metadata allows: pyproject's requires-python, setup's python_requires, or Poetry's python. */
function requiresPythonOf(pyproject: PyprojectDeclares, setupScripts: string): string | undefined {
  return (
    pyproject.requiresPython ??
    /python_requires\s*=\s*["']?([^"'\n,]+)/.exec(setupScripts)?.[1] ??
    poetryPython(pyproject.poetryPython)
  );
}

async function requiresPythonAt(files: RepoFiles): Promise<string | undefined> {
  const read = async (name: string) => (files.rootFiles.has(name) ? ((await files.read(name)) ?? '') : '');
  const scripts = (await read('setup.py')) + (await read('setup.cfg'));
  return requiresPythonOf(pyprojectDeclares(await read('pyproject.toml')), scripts);
}

/**
 * Poetry's python constraint as a PEP 440 specifier: "^3.8" is >=3.8,<4, "~3.8" is >=3.8,<3.9; PEP 440
 * forms (">=3.8,<3.12", "~=3.8") are kept, and "*" says nothing. A union ("~2.7 || ^3.4", the form of
 * projects that kept Python 2) stays one, each of its parts converted (specifierAllows reads `||`).
 */
export function poetryPython(constraint: string | undefined): string | undefined {
  const c = constraint?.trim();
  if (!c || c === '*') return undefined;
  return c
    .split(/\s*\|\|?\s*/)
    .map(poetryAlternative)
    .join(' || ');
}

function poetryAlternative(c: string): string {
  const m = /^([\^~])\s*(\d+)(?:\.(\d+))?/.exec(c);
  if (!m || c.startsWith('~=')) return c;
  const [major, minor] = [Number(m[2]), Number(m[3] ?? 0)];
  return m[1] === '^' ? `>=${major}.${minor},<${major + 1}` : `>=${major}.${minor},<${major}.${minor + 1}`;
}

/** The package names a requirements file's lines name (options, includes and comments left out). */
function namesInRequirements(text: string | undefined): string[] {
  return (text ?? '')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l && !l.startsWith('-') && !/^[./]|:\/\//.test(l))
    .map(requirementName);
}

/**
 * Packages the PR's tests need that the base declares nowhere: those its merge names in test
 * requirement files, test extras or test groups, and that no requirement file, extra, group or setup
 * script of the base names. A PR that starts testing under a new library (trio, say) adds it with the
 * tests that import it; without it those tests cannot run at the base or after the gold change.
 */
export async function addedTestRequirements(base: RepoFiles, merged: RepoFiles): Promise<string[]> {
  const declaredIn = async (files: RepoFiles, testOnly: boolean) => {
    const { found, tests } = await requirementFilesOf(files);
    // Test ones only: development files and groups add linters and release tools, not what tests import.
    const reqFiles = testOnly ? tests : found;
    const names = (await Promise.all(reqFiles.map(async (f) => namesInRequirements(await files.read(f))))).flat();
    const pyproject = pyprojectDeclares(
      files.rootFiles.has('pyproject.toml') ? ((await files.read('pyproject.toml')) ?? '') : '',
    );
    for (const lists of [pyproject.extras, pyproject.groups])
      for (const [key, requirements] of lists)
        if (!testOnly || (TESTISH.test(key) && !/^dev$/i.test(key)))
          names.push(...(requirements ?? []).map(requirementName));
    if (!testOnly) names.push(...pyproject.dependencies.map(requirementName));
    return names;
  };
  const scripts = ((await base.read('setup.py')) ?? '') + ((await base.read('setup.cfg')) ?? '');
  const known = new Set([...(await declaredIn(base, false)), ...IN_IMAGE]);
  const wanted = await declaredIn(merged, true);
  return [
    ...new Set(
      wanted.filter((n) => !known.has(n) && !new RegExp(`["'\\s]${n.replace(/[.-]/g, '[._-]')}\\b`, 'i').test(scripts)),
    ),
  ].sort();
}
