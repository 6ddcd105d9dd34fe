// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostPythons } from '../../../../src/environments/languages/python/host-pythons';
import { detectPython } from '../../../../src/environments/languages/python/detect';
import { checkoutFiles } from '../../../../src/environments/repo-files';
import { fetchAcme, fetchInputs } from '../../../support/python-project';
import { missingPythons, testIf } from '../../../support/preconditions';

test("a setup.py project's metadata is built by the tools' interpreter: no python3.X of the target's minor is looked for on PATH", async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-resolver-interpreter-'));
  const bin = join(root, 'bin');
  const called = join(root, 'called');
  const path = process.env.PATH;
  try {
    // What uv's discovery would run: a Python 3.8 of its own on PATH (a pyenv shim of a version not activated fails like this one).
    await mkdir(bin);
    for (const name of ['python3.8', 'python3.8m'])
      await writeFile(
        join(bin, name),
        `#!/bin/sh\necho "$0" >> ${called}\necho "pyenv: ${name}: command not found" >&2\nexit 127\n`,
      );
    await chmod(join(bin, 'python3.8'), 0o755);
    await chmod(join(bin, 'python3.8m'), 0o755);
    process.env.PATH = `${bin}:${path}`;
    // Its requirement is computed when setup.py runs: only a built metadata names it.
    const { resolution, requirements } = await fetchAcme(
      fetchInputs({ python: '3.8' }),
      [],
      new Date('2021-06-01T00:00:00Z'),
      'from setuptools import setup\nsetup(name="acme", version="0.1", packages=["acme"], install_requires=["six" + "==1.15.0"])\n',
    );
    expect(resolution.packages).toContainEqual({ name: 'six', version: '1.15.0' });
    expect(requirements).toMatch(/^six==1\.15\.0$/m);
    expect(existsSync(called)).toBe(false);
  } finally {
    process.env.PATH = path;
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);

/**
 * Metadata a setup.py builds only on its own era's Python (cffi of 2020, a build requirement, compiles
 * for the interpreter that builds, and fails on 3.11): built by the host's interpreter of the target's
 * minor where the recipe names one, not by the tools' newer Python.
 */
testIf(missingPythons(['3.8']))(
  "a setup.py's metadata is built by the target minor's interpreter where the host has it",
  async () => {
    const prefix = (await hostPythons()).find((p) => p.version === '3.8')!.prefix;
    const { resolution } = await fetchAcme(
      fetchInputs({ python: '3.8', interpreter: `${prefix}/bin/python3` }),
      [],
      new Date('2021-06-01T00:00:00Z'),
      'import sys\nfrom setuptools import setup\nif sys.version_info[:2] != (3, 8):\n    raise SystemExit("acme builds on Python 3.8 only, not %d.%d" % sys.version_info[:2])\nsetup(name="acme", version="0.1", packages=["acme"], install_requires=["six==1.15.0"])\n',
    );
    expect(resolution.packages).toContainEqual({ name: 'six', version: '1.15.0' });
  },
  600_000,
);

/**
 * A project of Python 3.6's era whose setup.py imports its package for its version, and whose package
 * 3.7 on no longer parses (a generator argument with a trailing comma): detected for the host's 3.6, its
 * metadata is built by that 3.6, not by the tools' newer Python, where the import fails.
 */
testIf(missingPythons(['3.6']))(
  "a setup.py that imports a package only its era's Python parses is built by the host's interpreter of that minor, before 3.8 too",
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'chainsmith-resolver-interpreter-'));
    try {
      const src = join(root, 'src');
      await mkdir(join(src, 'acme'), { recursive: true });
      await writeFile(
        join(src, 'acme', '__init__.py'),
        '__version__ = "0.1"\n\n\ndef names(*fs):\n    return sorted(f.__name__ for f in fs,)\n',
      );
      await writeFile(
        join(src, 'setup.py'),
        'from setuptools import setup\nfrom acme import __version__\n' +
          'setup(name="acme", version=__version__, packages=["acme"], install_requires=["six"],\n' +
          '      classifiers=["Programming Language :: Python :: 3.6"])\n',
      );
      const recipe = (await detectPython(await checkoutFiles(src), undefined, {
        provided: await hostPythons(),
        baseDate: async () => new Date('2017-06-01T00:00:00Z'),
        tested: async () => ['3.6'],
      }))!;
      expect(recipe.toolchain.version).toBe('3.6');
      await mkdir(join(root, 'deps'));
      const resolution = await recipe.fetch!({
        srcDir: src,
        depsDir: join(root, 'deps'),
        asOf: new Date('2017-06-01T00:00:00Z'),
        log: () => undefined,
        signal: new AbortController().signal,
      });
      expect(resolution.packages.map((p) => p.name.toLowerCase())).toContain('six');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  },
  600_000,
);
