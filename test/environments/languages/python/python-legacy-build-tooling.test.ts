// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonFetch } from '../../../../src/environments/languages/python/fetch';
import { fetchInputs } from '../../../support/python-project';

/**
 * A stage of early 2018: the test tooling of its date is pytest 3.3 or 3.4, which needs pluggy 0.6, published
 * as an sdist alone. uv reads an sdist's metadata with PEP 517's legacy backend, which needs setuptools
 * 40.8 (2019): the build requirements resolve with setuptools and wheel of a later date, as the
 * project's own requirements do, instead of failing the stage's environment.
 */
test('the test tooling of an era before setuptools 40.8 resolves, its sdists read with a later setuptools', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-legacy-build-tooling-'));
  try {
    const src = join(root, 'src');
    const depsDir = join(root, 'deps');
    await mkdir(join(src, 'acme'), { recursive: true });
    await mkdir(depsDir);
    await writeFile(join(src, 'acme', '__init__.py'), '');
    await writeFile(
      join(src, 'setup.py'),
      'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"])\n',
    );
    const resolution = await pythonFetch(fetchInputs({ python: '3.6', testTooling: ['pytest'] }))({
      srcDir: src,
      depsDir,
      asOf: new Date('2018-03-07T10:00:39Z'),
      log: () => undefined,
      signal: new AbortController().signal,
      toolsDir: join(root, 'tools'),
    });
    const requirements = await readFile(join(depsDir, 'requirements.txt'), 'utf8');
    expect(requirements).toMatch(/^pytest==3\.\d+\.\d+$/m);
    expect(requirements).toMatch(/^pluggy==0\.6\.0$/m);
    expect(resolution.notes.join('\n')).toMatch(/setuptools and wheel are resolved as of 2024-01-01/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);
