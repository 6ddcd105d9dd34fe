import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import { madeOnce } from '../../host-tools';
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
  const cannot = (why: string) => {
    const message = `Maven ${version} cannot be had: ${why}`;
    return new StageError(message, { reason: stageReason('unsupported', message) });
  };
  return madeOnce(home, join(home, 'bin', 'mvn'), async (tmp) => {
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
    const unpacked = join(tmp, `apache-maven-${version}`);
    if (!existsSync(unpacked)) throw cannot(`apache-maven-${version}-bin.tar.gz holds no apache-maven-${version}/`);
    return unpacked;
  }).catch((err: unknown) => {
    // Not a registry's answer but the tools directory's (a rename refused): the stage's reason all the same.
    throw err instanceof StageError ? err : cannot(`${home}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  });
}
