// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
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
