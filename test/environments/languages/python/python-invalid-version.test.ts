// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installRequires } from '../../../../src/environments/languages/python/setup-requires';
import { fetchFiles, fetchInputs } from '../../../support/python-project';

/** The resolution of a checkout of `files` for Python `python` as of `asOf`, in a directory removed after. */
async function fetchTally(files: Record<string, string>, python: string, asOf: string) {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-own-metadata-'));
  try {
    return (await fetchFiles(root, files, fetchInputs({ python }), new Date(asOf))).resolution;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A setup.py that imports its module for the version (which imports six), with `requires` as install_requires. */
const importsItsVersion = (requires: string) =>
  'from setuptools import setup\n' +
  'from tally import __version__\n' +
  "setup(name='tally', version=__version__, py_modules=['tally'],\n" +
  `      install_requires=${requires})\n`;
const TALLY_IMPORTS_SIX = "import six\n__version__ = '1.0'\n";

// A project of 2019 whose setup.py takes its version from the module, "trunk" between releases: setuptools of then
// built it with a warning, uv refuses its metadata ("Invalid version: expected version to start with a number").
test('a project whose version PEP 440 does not read resolves from what its setup.py lists, not stopping the stage', async () => {
  const setupPy =
    'from setuptools import setup\n' +
    "setup(name='tally', version='trunk', py_modules=['tally'],\n" +
    "      install_requires=['six==1.9.0'])\n";
  // Without the fix: dependencies-unresolvable, "Failed to parse metadata from built wheel".
  const resolution = await fetchTally({ 'setup.py': setupPy, 'tally.py': '' }, '3.8', '2019-11-13T00:00:00Z');
  expect(resolution.packages).toContainEqual({ name: 'six', version: '1.9.0' });
  expect(resolution.notes.join('\n')).toMatch(/refuses the project's own metadata.*six==1\.9\.0/);
}, 300_000);

// A project of 2019 whose setup.py imports its module for the version, and the module its dependency: where it was
// installed in place that was there already; the isolated build that reads its metadata for the resolver has none.
test('a project whose own metadata does not build on the host resolves from what its setup.py lists', async () => {
  // Without the fix: dependencies-unresolvable, "The build backend returned an error".
  const resolution = await fetchTally(
    { 'setup.py': importsItsVersion("['six==1.9.0']"), 'tally.py': TALLY_IMPORTS_SIX },
    '3.8',
    '2019-11-13T00:00:00Z',
  );
  expect(resolution.packages).toContainEqual({ name: 'six', version: '1.9.0' });
  expect(resolution.notes.join('\n')).toMatch(
    /own metadata does not build on the host \(ModuleNotFoundError: No module named 'six'\).*six==1\.9\.0/,
  );
}, 300_000);

// The same, where setup.py computes its requirements: no literal list says them, and resolving without them would
// build an environment that lacks them. The stage keeps the project's own failure as its reason.
test('a project whose own metadata does not build and whose requirements are computed stays unresolvable', async () => {
  const fetched = fetchTally(
    {
      'setup.py': importsItsVersion("open('deps.in').read().split()"),
      'tally.py': TALLY_IMPORTS_SIX,
      'deps.in': 'six==1.9.0\n',
    },
    '3.8',
    '2019-11-13T00:00:00Z',
  );
  await expect(fetched).rejects.toMatchObject({
    reason: { kind: 'dependencies-unresolvable', tail: expect.stringContaining("No module named 'six'") },
  });
}, 300_000);

// A 2015 setup.py that converts its Python 2 code with 2to3 as it builds, read with the later setuptools the resolver
// needs (the era's predates PEP 517's legacy backend), which refuses `use_2to3`: that is the stage's reason, unsupported,
// and not a metadata failure to step around with the literal list.
test('a setup.py refused for use_2to3 is unsupported, not resolved from what it lists', async () => {
  const setupPy =
    'from setuptools import setup\n' +
    "setup(name='tally', version='1.0', py_modules=['tally'], use_2to3=True,\n" +
    "      install_requires=['six==1.9.0'])\n";
  const fetched = fetchTally({ 'setup.py': setupPy, 'tally.py': '' }, '3.6', '2015-06-01T00:00:00Z');
  await expect(fetched).rejects.toMatchObject({ reason: { kind: 'unsupported' } });
}, 300_000);

test('install_requires is read as setup_requires is: setup.py literals, setup.cfg [options]', () => {
  expect(installRequires('setup(install_requires=[\'six>=1.4\', "attrs[tests]"])', '')).toEqual([
    'six>=1.4',
    'attrs[tests]',
  ]);
  expect(installRequires('', '[options]\ninstall_requires =\n    six\n    attrs>=19\n')).toEqual(['six', 'attrs>=19']);
  expect(installRequires('setup(install_requires=REQUIRES)', '')).toEqual([]);
});
