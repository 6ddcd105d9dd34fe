// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool } from '../../../../src/environments/host-tools';
import {
  installedVersion,
  makeToolsVenv,
  TOOLS_PIP_ENV,
} from '../../../../src/environments/languages/python/tools-venv';

test('the tools venv holds uv and the pip ensurepip would install, not byte-compiled until a run writes what it imports', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-tools-venv-'));
  try {
    const venv = join(root, 'uv');
    await makeToolsVenv(venv);
    const python = join(venv, 'bin', 'python');
    expect((await runTool(join(venv, 'bin', 'uv'), ['--version'])).stdout).toMatch(/^uv \d+\.\d+/);
    // The pip of the interpreter's ensurepip, as `python -m venv` would have installed.
    const bundled = (await runTool(python, ['-c', 'import ensurepip; print(ensurepip.version())'])).stdout.trim();
    expect(await installedVersion(venv, 'pip')).toBe(bundled);
    const pipRun = await runTool(python, ['-m', 'pip', '--version']);
    expect(pipRun.stdout).toContain(`pip ${bundled} from ${venv}`);
    // Not compiled at install; a run given TOOLS_PIP_ENV writes the bytecode of what it imports, even where the host forbids it.
    const site = (await readdir(join(venv, 'lib')))[0];
    const pipCache = join(venv, 'lib', site, 'site-packages', 'pip', '_internal', 'cli', '__pycache__');
    expect(existsSync(pipCache)).toBe(false);
    const before = process.env.PYTHONDONTWRITEBYTECODE;
    process.env.PYTHONDONTWRITEBYTECODE = '1';
    const listed = await runTool(python, ['-m', 'pip', 'config', 'list'], { env: TOOLS_PIP_ENV }).finally(() => {
      if (before === undefined) delete process.env.PYTHONDONTWRITEBYTECODE;
      else process.env.PYTHONDONTWRITEBYTECODE = before;
    });
    expect(listed.code).toBe(0);
    expect((await readdir(pipCache)).some((f) => f.startsWith('main.'))).toBe(true);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 600_000);

test('a package not installed in a venv has no version', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-tools-venv-'));
  try {
    expect(await installedVersion(root, 'pip')).toBe('unknown');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
