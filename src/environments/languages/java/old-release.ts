import { JAVAC_PROPERTY } from './skip-extension';
import { QUICK_JVM } from './settings';

/**
 * POMs that compile for a Java older than Debian's JDK 17 takes (source, target or release below 7:
 * Java 5 and 6, as Maven projects of the 2000s and early 2010s declare them). Their compiler plugin's
 * `<source>1.5</source>` is plugin configuration, which no property overrides, and javac 17 refuses it
 * ("Source option 5 is no longer supported"). Maven is told instead to fork the compiler through
 * JAVAC_COMPAT, which raises those values to 7 and runs the JDK's javac: code written for Java 5
 * compiles as Java 7. `maven.compiler.fork` and `maven.compiler.executable` say so, and the Maven
 * extension (skip-extension.ts) in a compiler configuration that sets its own: a POM's own javac (a
 * parent's profile for a JDK 6 home) is not in the image, and javac 17 in process refuses the source.
 */

/** The oldest release javac 17 compiles for. */
export const OLDEST_RELEASE = 7;

/**
 * The wrapper. Maven's forked compiler passes its options in an @argfile, one quoted option a line
 * (plexus-compiler's javac): the value after -source, -target or --release is raised there, and on
 * the command line alike. The forked javac's JVM runs on the quick JIT tier with the serial collector
 * (QUICK_JVM, as Maven's own JVM, where the compiler runs when it is not forked): a compile is one
 * short-lived JVM, where C2's compiling costs more than it saves. Measured on jsoup's Java 5 POM (57
 * main and 30 test sources, one CPU): 21 CPU-s a compile at the JDK's default, 11 with these flags.
 * The same javac and options, so the same classes: nothing is left out.
 */
export const JAVAC_COMPAT = String.raw`#!/bin/sh
# chainsmith: javac for a POM that compiles for a Java older than this JDK takes (-source/-target/--release below 7 become 7).
prev=
for a do
  shift
  case "$prev" in -source|-target|--release|--source|--target) case "$a" in 1.[0-6]|[1-6]) a=7 ;; esac ;; esac
  case "$a" in @*) sed -i -E '/^"?(-source|-target|--release)"?$/{n;s/^("?)(1\.[0-6]|[1-6])("?)$/\17\3/}' "${'$'}{a#@}" ;; esac
  set -- "$@" "$a"
  prev=$a
done
exec javac ${QUICK_JVM.split(' ')
  .map((f) => `-J${f}`)
  .join(' ')} "$@"
`;

/**
 * The release a POM that names none compiles for: its compiler plugin's default, 1.5 before
 * maven-compiler-plugin 3.8.0, 1.6 in 3.8 and 7 from 3.9.0. A POM that does not pin the plugin gets
 * Maven 3.8's default binding, 3.1 (Java 5). A version this POM does not spell out (a property of a
 * parent's) counts as that default too: the wrapper leaves a release javac 17 takes as it is.
 */
export function compilerDefault(pom: string): string {
  const m = /<artifactId>\s*maven-compiler-plugin\s*<\/artifactId>\s*<version>\s*(\d+)\.(\d+)/.exec(pom);
  const [major, minor] = m ? [Number(m[1]), Number(m[2])] : [3, 1];
  if (major > 3 || (major === 3 && minor >= 9)) return String(OLDEST_RELEASE);
  return major === 3 && minor === 8 ? '6' : '5';
}

/** Whether a POM's Java release (javaRelease) is one javac 17 no longer takes. */
export function belowOldest(release: string | undefined): boolean {
  return release !== undefined && Number(release) < OLDEST_RELEASE;
}

/** The properties that make Maven fork javac through the wrapper at `path`. */
export function compatProperties(path: string): Record<string, string> {
  return { 'maven.compiler.fork': 'true', 'maven.compiler.executable': path, [JAVAC_PROPERTY]: path };
}
