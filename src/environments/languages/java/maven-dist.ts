import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import { mustRun } from '../host-command';

/**
 * A newer Maven than Debian's 3.8.7, for POMs whose plugins refuse an older one (`requires Maven
 * version 3.9`: Apache RAT 0.18, the Apache parents of 2025 on). One fixed release, so that images
 * built with it are the same from one day to the next.
 */
export const NEWER_MAVEN = '3.9.11';
/** Maven's complaint that a plugin needs a newer Maven than the one running it. */
export const NEEDS_NEWER_MAVEN = /requires Maven version \d+(?:\.\d+)*/;
/** Where the image holds it (the agent's home: the build may write there), first on PATH. */
export const MAVEN_HOME_IN_IMAGE = '/home/agent/.chainsmith-maven';

/**
 * Maven `version`'s binary distribution, unpacked once per host under `toolsDir`: the artifact
 * `org.apache.maven:apache-maven:<version>:tar.gz:bin`, fetched by the host's own `mvn` from the
 * repositories its settings name (mirrors and proxies as for any fetch). Returns its home directory.
 * Unpacked beside and renamed into place, so a fetch cut short leaves nothing half there.
 */
export async function mavenDistribution(version: string, toolsDir: string, signal: AbortSignal): Promise<string> {
  const home = join(toolsDir, `maven-${version}`);
  if (existsSync(join(home, 'bin', 'mvn'))) return home;
  await mkdir(toolsDir, { recursive: true });
  const tmp = await mkdtemp(join(toolsDir, `.maven-${version}-`));
  try {
    await mustRun(
      `fetching Maven ${version}`,
      'mvn',
      [
        '-B',
        '-q',
        'dependency:copy',
        `-Dartifact=org.apache.maven:apache-maven:${version}:tar.gz:bin`,
        `-DoutputDirectory=${tmp}`,
      ],
      { cwd: tmp, signal },
    );
    await mustRun(`unpacking Maven ${version}`, 'tar', ['-xzf', `apache-maven-${version}-bin.tar.gz`], {
      cwd: tmp,
      signal,
    });
    const unpacked = (await readdir(tmp)).find((f) => f === `apache-maven-${version}`);
    const cannot = (why: string) => {
      const message = `Maven ${version} cannot be had: ${why}`;
      return new StageError(message, { reason: stageReason('unsupported', message) });
    };
    if (!unpacked) throw cannot(`apache-maven-${version}-bin.tar.gz holds no apache-maven-${version}/`);
    // Another fetch may have put it there meanwhile: theirs stays.
    await rename(join(tmp, unpacked), home).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(join(home, 'bin', 'mvn'))) throw cannot(`${home}: ${err.code ?? err.message}`);
    });
    return home;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
