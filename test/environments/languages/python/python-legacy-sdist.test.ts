// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../../src/process/run';
import { fetchFiles, fetchInputs, installOffline, sdistLinks, withFindLinks } from '../../../support/python-project';

// The release is offered beside the host's index the way pip's settings offer a directory (PIP_FIND_LINKS), which the
// fetch hands to uv and pip alike. The data directory's tools venv holds the newest uv, as one made before the pin
// would: the fetch replaces it.
test('a dependency released only as a .tar.bz2 sdist resolves, lands in the dependency directory and installs offline', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-legacy-sdist-'));
  try {
    const tools = join(root, 'tools', 'uv');
    expect((await run('python3', ['-m', 'venv', tools])).exitCode).toBe(0);
    expect((await run(join(tools, 'bin', 'pip'), ['install', '--quiet', 'uv'])).exitCode).toBe(0);
    // A release of `legacy-dep` published as a `.tar.bz2` sdist alone, as many were before PEP 625.
    const links = await sdistLinks(root, 'legacy_dep-1.0', 'legacy-dep-1.0.tar.bz2', {
      'setup.py': 'from setuptools import setup\nsetup(name="legacy-dep", version="1.0", py_modules=["legacy_dep"])\n',
      'legacy_dep.py': 'VALUE = 42\n',
      'PKG-INFO': 'Metadata-Version: 1.0\nName: legacy-dep\nVersion: 1.0\n',
    });
    const { depsDir: deps } = await withFindLinks(links, () =>
      fetchFiles(
        root,
        { 'requirements.txt': 'legacy-dep==1.0\n' },
        fetchInputs({ python: '3.11' }),
        new Date('2021-06-15T00:00:00Z'),
      ),
    );
    // Without the pinned uv, or with the newest one left in place (0.12 and later): uv refuses the release ("a
    // non-PEP 625-compliant source distribution filename") and the fetch throws dependencies-unresolvable.
    expect(await readdir(deps)).toContain('legacy-dep-1.0.tar.bz2');

    // What the image does with it (detect.ts, uvVenv): the uv the fetch left builds the sdist from that directory alone.
    const { install, python } = await installOffline(root, deps, 'legacy-dep==1.0');
    expect({ exitCode: install.exitCode, stderr: install.stderr }).toMatchObject({ exitCode: 0 });
    const imported = await run(python, ['-c', 'import legacy_dep; print(legacy_dep.VALUE)']);
    expect(imported.stdout.trim()).toBe('42');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);
