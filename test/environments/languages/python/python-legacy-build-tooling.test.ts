// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { fetchAcme, fetchInputs } from '../../../support/python-project';

/**
 * A stage of early 2018: the test tooling of its date is pytest 3.3 or 3.4, which needs pluggy 0.6, published
 * as an sdist alone. uv reads an sdist's metadata with PEP 517's legacy backend, which needs setuptools
 * 40.8 (2019): the build requirements resolve with setuptools and wheel of a later date, as the
 * project's own requirements do, instead of failing the stage's environment.
 */
test('the test tooling of an era before setuptools 40.8 resolves, its sdists read with a later setuptools', async () => {
  const { resolution, requirements } = await fetchAcme(
    fetchInputs({ python: '3.6', testTooling: ['pytest'] }),
    [],
    new Date('2018-03-07T10:00:39Z'),
  );
  expect(requirements).toMatch(/^pytest==3\.\d+\.\d+$/m);
  expect(requirements).toMatch(/^pluggy==0\.6\.0$/m);
  expect(resolution.notes.join('\n')).toMatch(/setuptools and wheel are resolved as of 2024-01-01/);
}, 600_000);

/**
 * A stage of 2013 on the oldest Python here (3.6): pytest of its date (2.3) rewrites assertions with
 * the ast.Call of Python 3.4, and every test module with an assert errors at collection. The tooling
 * the image's Python needs comes at its floor on that Python (pytest 2.7.3), with a py of that date.
 */
test('the test tooling of an era before the Python comes at its floor on that Python', async () => {
  const { requirements } = await fetchAcme(
    fetchInputs({ python: '3.6', testTooling: ['pytest'] }),
    [],
    new Date('2013-04-01T00:00:00Z'),
  );
  expect(requirements).toMatch(/^pytest==2\.7\.3$/m);
  expect(requirements).toMatch(/^py==1\.4\.30$/m);
}, 600_000);

/**
 * A setup.py project of 2019 that names setuptools' PEP 517 backend in its pyproject.toml (not the legacy
 * one): uv reads its metadata with the setuptools of its date, 41, which fails inside its own modules on the
 * host's newer Python (HTMLParser.unescape, gone in 3.9). Its metadata is read with a later setuptools too;
 * what the image installs keeps the era's.
 */
test("a 2019 project on setuptools' own backend has its metadata read with a later setuptools", async () => {
  const { resolution } = await fetchAcme(
    fetchInputs({ python: '3.6', testTooling: ['pytest'] }),
    ['six'],
    new Date('2019-05-08T20:13:55Z'),
    undefined,
    {
      'pyproject.toml':
        '[build-system]\nrequires = ["setuptools>=40.6.0", "wheel"]\nbuild-backend = "setuptools.build_meta"\n',
    },
  );
  expect(resolution.packages.map((p) => p.name)).toContain('six');
  // The era's (40 or 41 by the quarter's start), not the one that read the metadata (59 on 3.6).
  const setuptools = resolution.packages.find((p) => p.name === 'setuptools')?.version ?? '';
  expect(Number(setuptools.split('.')[0])).toBeLessThan(42);
}, 600_000);

/**
 * A 2018 requirement whose sdist's setup.py imports setuptools' Feature (zope.interface 4.5.0): the
 * setuptools that reads metadata for the era (as of 2024) removed it in 46, so the lift comes down to
 * setuptools 45, which has it and runs on the host's Python. Read on the tools' Python and on the
 * target's own minor, 3.6, whose ImportError does not name the module (`cannot import name 'Feature'`).
 */
test.each([
  ['the tools’ Python', async () => undefined],
  ['the host’s CPython 3.6', async () => `${await hostPython('3.6')}/bin/python3`],
])(
  "an sdist that imports setuptools' Feature has its metadata read with setuptools 45, on %s",
  async (_, which) => {
    const interpreter = await which();
    const { resolution, requirements } = await fetchAcme(
      fetchInputs({ python: '3.6', testTooling: ['pytest'], ...(interpreter ? { interpreter } : {}) }),
      ['zope.interface==4.5.0'],
      new Date('2018-07-12T10:19:24Z'),
    );
    expect(requirements).toMatch(/^zope[.-]interface==4\.5\.0$/m);
    expect(resolution.notes.join('\n')).toMatch(
      /resolved as of 2020-03-01 instead: an sdist's setup.py imports setuptools' Feature/,
    );
  },
  600_000,
);

/** The prefix of the host's CPython of `minor` (pyenv's, as the Python choice finds it). */
async function hostPython(minor: string): Promise<string> {
  const found = (await hostPythons()).find((p) => p.version === minor);
  if (!found) throw new Error(`this test needs a CPython ${minor} on the host, as the machine provides (pyenv)`);
  return found.prefix;
}
