// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonFetch } from '../../../../src/environments/languages/python/fetch';
import { fetchInputs } from '../../../support/python-project';

/**
 * pypandoc 1.4 (2018) names pip among its requirements, which resolve to pip 9 as of its date: installed,
 * it would replace the venv's own pip before the project's install, and pip 9 knows no
 * --no-build-isolation. The installer is the venv's: pip is left out of what the image installs.
 */
test("a pip that a dependency names is not installed over the venv's own", async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-installer-pip-'));
  try {
    const src = join(root, 'src');
    const depsDir = join(root, 'deps');
    await mkdir(join(src, 'acme'), { recursive: true });
    await mkdir(depsDir);
    await writeFile(join(src, 'acme', '__init__.py'), '');
    await writeFile(
      join(src, 'setup.py'),
      'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"], install_requires=["pypandoc==1.4"])\n',
    );
    const resolution = await pythonFetch(fetchInputs({ python: '3.6' }))({
      srcDir: src,
      depsDir,
      asOf: new Date('2018-03-07T10:00:39Z'),
      log: () => undefined,
      signal: new AbortController().signal,
      toolsDir: join(root, 'tools'),
    });
    const requirements = await readFile(join(depsDir, 'requirements.txt'), 'utf8');
    expect(requirements).toMatch(/^pypandoc==1\.4$/m);
    expect(requirements).not.toMatch(/^pip==/m);
    expect(resolution.packages.map((p) => p.name)).not.toContain('pip');
    expect(resolution.notes).toContainEqual(
      expect.stringMatching(/^pip==9\.\S+ is not installed: the venv's own pip installs the project$/),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);
