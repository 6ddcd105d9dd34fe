// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../../../src/process/run';
import { fetchFiles, fetchInputs, installOffline } from '../../../support/python-project';

// ujson 4.0.2 (2021) published compiled wheels up to CPython 3.9: on 3.11 its sdist is what installs, and its
// pyproject.toml builds it with setuptools_scm, which nothing else the project needs brings.
test('an sdist the image compiles brings its build-system.requires into the dependency directory, so the offline install builds it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-sdist-backend-'));
  try {
    const { resolution, depsDir: deps } = await fetchFiles(
      root,
      { 'requirements.txt': 'ujson==4.0.2\n' },
      fetchInputs({ python: '3.11' }),
      new Date('2021-06-15T00:00:00Z'),
    );
    const files = await readdir(deps);
    expect(files).toContain('ujson-4.0.2.tar.gz');
    expect(files.filter((f) => /^setuptools_scm-/.test(f))).toHaveLength(1);
    expect(resolution.notes.join('\n')).toMatch(/ujson-4\.0\.2\.tar\.gz.*setuptools_scm/);

    // What the image does with it (detect.ts, uvVenv): an offline install from that directory alone, which builds the sdist.
    const { install, python } = await installOffline(root, deps, 'ujson==4.0.2', { noDeps: true });
    // Without the fix: exit 1, uv finding no setuptools_scm for the sdist's build environment.
    expect({ exitCode: install.exitCode, stderr: install.stderr }).toMatchObject({ exitCode: 0 });
    const imported = await run(python, ['-c', 'import ujson; print(ujson.dumps([1]))']);
    expect(imported.stdout.trim()).toBe('[1]');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);
