// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uvSettings } from '../../../../src/environments/languages/python/fetch';

test("the host's pip configuration is read once while it stays as it was, and again once its file changes", async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-pip-settings-'));
  const conf = join(root, 'pip.conf');
  const saved = process.env.PIP_CONFIG_FILE;
  try {
    process.env.PIP_CONFIG_FILE = conf;
    await writeFile(conf, `[global]\nfind-links = ${join(root, 'a')}\n`);
    const first = await uvSettings('python3');
    expect(first.UV_FIND_LINKS).toBe(join(root, 'a'));
    // Unchanged: the same settings, not read again.
    expect(await uvSettings('python3')).toBe(first);
    await writeFile(conf, `[global]\nfind-links = ${join(root, 'bb')}\n`);
    const changed = await uvSettings('python3');
    expect(changed).not.toBe(first);
    expect(changed.UV_FIND_LINKS).toBe(join(root, 'bb'));
  } finally {
    if (saved === undefined) delete process.env.PIP_CONFIG_FILE;
    else process.env.PIP_CONFIG_FILE = saved;
    await rm(root, { recursive: true, force: true });
  }
}, 120_000);
