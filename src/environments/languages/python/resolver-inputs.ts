import type { RepoFiles } from '../../contract';
import { docsFile, pyprojectDeclares, testSelection, type TestSelection } from './pyproject-declares';
import { extrasNamed, requirementFilesNamed } from './tool-deps';

/** Requirement files a test run usually needs, below the root. */
const NESTED_REQUIREMENTS = [
  'requirements/tests.txt',
  'requirements/test.txt',
  'requirements/testing.txt',
  'requirements/dev.txt',
  'tests/requirements.txt',
];
/**
 * A requirement file named for Python 2 (`requirements26.txt`, `requirements-py27.txt`, `py2-requirements.txt`):
 * what a project of the 2010s installed on 2.6 or 2.7 only (unittest2, ordereddict), often Python 2 code
 * that no Python here can even read the metadata of. Every stage runs on a Python 3.
 */
export const python2File = (path: string) =>
  /(py(thon)?[-_.]?2(\.?[67])?|(?<![0-9])2\.?[67])(?![0-9])/.test(path.toLowerCase().split('/').pop() ?? '');

/**
 * Requirement files at the root, the usual nested places and those the test runs install by `-r` (tox,
 * nox): test ones where there are some, else development ones (which often pull in docs and linters too);
 * none named for Python 2 (python2File) or for the documentation (docsFile).
 * `tests` are the test ones: by their name, or named by a test run.
 */
export async function requirementFilesOf(
  files: RepoFiles,
): Promise<{ requirementFiles: string[]; found: string[]; tests: string[] }> {
  const rootRequirements = [...files.rootFiles]
    .filter((f) => /requirements[\w.-]*\.txt$/i.test(f) && !docsFile(f))
    .sort();
  const root = async (name: string) => (files.rootFiles.has(name) ? ((await files.read(name)) ?? '') : '');
  const named = requirementFilesNamed(await root('tox.ini'), await root('noxfile.py')).filter((f) => !docsFile(f));
  const existing = async (paths: string[]) =>
    (await Promise.all(paths.map(async (f) => ((await files.read(f)) === undefined ? undefined : f)))).filter(
      (f): f is string => !!f,
    );
  const nested = await existing(NESTED_REQUIREMENTS);
  const run = await existing(named);
  const found = [...new Set([...rootRequirements, ...nested, ...run])].filter((f) => !python2File(f));
  const tests = found.filter((f) => /test/i.test(f) || run.includes(f));
  return {
    requirementFiles: found
      .filter((f) => !/test|dev/i.test(f) && !tests.includes(f))
      .concat(tests.length ? tests : found.filter((f) => /dev/i.test(f))),
    found,
    tests,
  };
}

/** The files the resolver is handed, with the extras and groups to ask for. */
export interface ResolverInputs extends TestSelection {
  sources: string[];
  /** The project with its test requirement files (and a runtime requirements.txt) alone: tried where `sources` do not resolve. */
  testSources?: string[];
}

/**
 * What the resolver is handed of a checkout: the file its project is read from (pyproject.toml where
 * that declares it, in [project] or a backend's own table, else setup.py or setup.cfg) and its
 * requirement files, with the extras and groups to ask for. Read from the checkout resolved: a PR's
 * merge, resolved with the recipe detected at its base, may declare its project elsewhere (a setup.py
 * dropped for pyproject.toml) or its test requirements otherwise (an extra become a group).
 */
export async function resolverInputs(files: RepoFiles): Promise<ResolverInputs> {
  const has = (name: string) => files.rootFiles.has(name);
  const pyproject = pyprojectDeclares(has('pyproject.toml') ? ((await files.read('pyproject.toml')) ?? '') : '');
  // A pyproject.toml whose package metadata sits in a backend's own table (Poetry before 2, flit's old
  // layout), not in [project], is read by the resolver through that backend.
  const backendOnly = !pyproject.project && !has('setup.py') && pyproject.buildSystem && pyproject.backendMetadata;
  const project =
    pyproject.project || backendOnly || pyproject.unreadable
      ? ['pyproject.toml']
      : has('setup.py')
        ? ['setup.py']
        : has('setup.cfg')
          ? ['setup.cfg']
          : [];
  const { requirementFiles, tests } = await requirementFilesOf(files);
  // Where the whole set does not resolve (a linters' or a release's file pinning what no longer
  // installs), the project with its test files and its runtime requirements.txt alone.
  const needed = requirementFiles.filter((f) => tests.includes(f) || f === 'requirements.txt');
  const testSources = tests.length && needed.length < requirementFiles.length ? [...project, ...needed] : undefined;
  const selection = testSelection(pyproject, project.length > 0);
  // The extras the project's own test runs install (tox's, nox's): where the project's extras cannot be
  // read here (a setup.py's), those rather than every extra, of which the docs' often no longer resolve.
  const read = async (name: string) => (has(name) ? ((await files.read(name)) ?? '') : '');
  // Those for some of its environments only are asked for too, but left out with the other extras where they do not resolve.
  const { named, forSome } = extrasNamed(await read('tox.ini'), await read('noxfile.py'));
  if (!named.length && (!forSome.length || selection.extras === 'all'))
    return { sources: [...project, ...requirementFiles], testSources, ...selection };
  return {
    sources: [...project, ...requirementFiles],
    testSources,
    ...selection,
    extras: [...new Set([...(selection.extras === 'all' ? [] : selection.extras), ...named, ...forSome])],
    testExtras: [...new Set([...selection.testExtras, ...named])],
  };
}
