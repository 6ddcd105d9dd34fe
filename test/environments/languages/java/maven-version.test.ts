import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostMavenVersion } from '../../../../src/environments/languages/java/detect';
import { missingTool, testIf } from '../../../support/preconditions';

/** A directory whose `mvn` notes each call in `calls` and runs the host's Maven. */
async function countingMvn(): Promise<{ dir: string; calls: () => Promise<number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-mvn-version-'));
  const real = process.env.PATH ?? '';
  await writeFile(join(dir, 'mvn'), `#!/bin/sh\necho call >> "${dir}/calls"\nPATH='${real}' exec mvn "$@"\n`);
  await chmod(join(dir, 'mvn'), 0o755);
  const calls = async () =>
    (await readFile(join(dir, 'calls'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  return { dir, calls };
}

testIf(missingTool('mvn'))(
  "the host's Maven version is asked once for each mvn the PATH finds, not once a fetch",
  async () => {
    const path = process.env.PATH;
    const first = await countingMvn();
    const second = await countingMvn();
    try {
      process.env.PATH = `${first.dir}:${path}`;
      const version = await hostMavenVersion();
      expect(version).toMatch(/^Apache Maven \d+\.\d+/);
      expect(await hostMavenVersion()).toBe(version);
      expect(await first.calls()).toBe(1);
      // Another PATH may find another Maven: asked again.
      process.env.PATH = `${second.dir}:${path}`;
      expect(await hostMavenVersion()).toBe(version);
      expect(await second.calls()).toBe(1);
    } finally {
      process.env.PATH = path;
      await rm(first.dir, { recursive: true, force: true });
      await rm(second.dir, { recursive: true, force: true });
    }
  },
  60_000,
);
