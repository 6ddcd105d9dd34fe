import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { filesFingerprint } from '../../host-tools';

/** A JDK the host provides: its feature release ('25') and its home. */
export interface HostJdk {
  release: string;
  prefix: string;
}

/** Where Debian (and Adoptium's Debian packages) install JDKs. */
const JVM_DIR = '/usr/lib/jvm';

/** The JDK at `home`, or undefined where it is none (no javac, no `release` file naming JAVA_VERSION). */
function probe(home: string): HostJdk | undefined {
  if (!existsSync(join(home, 'bin', 'javac')) || !existsSync(join(home, 'release'))) return undefined;
  const version = /^JAVA_VERSION="(?:1\.)?(\d+)/m.exec(readFileSync(join(home, 'release'), 'utf8'))?.[1];
  return version ? { release: version, prefix: realpathSync(home) } : undefined;
}

/**
 * The newest JDK the host provides: JAVA_HOME's, and each JDK under /usr/lib/jvm (read from their
 * `release` files; nothing is run). Undefined where there is none. A JDK reached by two names
 * (Debian's symlinks) counts once.
 */
export function newestHostJdk(): HostJdk | undefined {
  const homes = [
    ...(process.env.JAVA_HOME ? [process.env.JAVA_HOME] : []),
    ...(existsSync(JVM_DIR) ? readdirSync(JVM_DIR).map((d) => join(JVM_DIR, d)) : []),
  ];
  return homes
    .map(probe)
    .filter((j): j is HostJdk => j !== undefined)
    .reduce<HostJdk | undefined>((a, b) => (!a || Number(b.release) > Number(a.release) ? b : a), undefined);
}

/** Size and modification time of a JDK's java launcher and its modules image: they change when the JDK is replaced. */
export function jdkFingerprint(prefix: string): string {
  return filesFingerprint([join(prefix, 'bin', 'java'), join(prefix, 'lib', 'modules')]);
}
