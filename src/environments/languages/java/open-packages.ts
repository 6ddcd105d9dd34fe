/**
 * JDK 16 and 17 deny reflection into the JDK's own packages (JEP 396, JEP 403: `--illegal-access` is
 * gone), where every earlier JDK allowed it, JDK 9 to 15 by default (`--illegal-access=permit`). Code
 * written for those JDKs reflects into them (Mockito 1's cglib calls ClassLoader.defineClass, old
 * Objenesis, Powermock, XStream) or calls javac's classes (com.sun.tools.javac.api.JavacTool): on
 * Debian's JDK 17 its tests fail with InaccessibleObjectException ("module java.base does not "opens
 * java.lang" to unnamed module") or IllegalAccessError ("module jdk.compiler does not export
 * com.sun.tools.javac.api"), before and after a stage's change alike. A POM that compiles for a Java before 16 (or names none) gets, through
 * OPTIONS_VARIABLE, which the toolchain image's `java` launcher puts before its arguments (every JVM's: Maven's, Surefire's
 * forked test JVM, a test's child JVM), the packages its JDK had open.
 */

/**
 * Options the Java toolchain image's launcher passes every JVM (images/toolchains/java/configure.sh). Not
 * JDK_JAVA_OPTIONS, which every JVM would note on stderr ("Picked up JDK_JAVA_OPTIONS"), where a test of a
 * child JVM's output sees it and upstream's did not.
 */
export const OPTIONS_VARIABLE = 'CHAINSMITH_JAVA_OPTIONS';

/** The first Java whose JDK denied such reflection by default. */
const STRONG_ENCAPSULATION = 16;

/** java.base's packages that code of those years reflects into, the desktop's beans and javac's API. */
const PACKAGES = [
  'java.base/java.io',
  'java.base/java.lang',
  'java.base/java.lang.annotation',
  'java.base/java.lang.invoke',
  'java.base/java.lang.ref',
  'java.base/java.lang.reflect',
  'java.base/java.math',
  'java.base/java.net',
  'java.base/java.nio',
  'java.base/java.nio.charset',
  'java.base/java.nio.file',
  'java.base/java.security',
  'java.base/java.text',
  'java.base/java.time',
  'java.base/java.util',
  'java.base/java.util.concurrent',
  'java.base/java.util.concurrent.atomic',
  'java.base/java.util.concurrent.locks',
  'java.base/java.util.regex',
  'java.base/java.util.stream',
  'java.base/java.util.zip',
  'java.base/jdk.internal.misc',
  'java.base/sun.nio.ch',
  'java.base/sun.security.util',
  'java.desktop/java.beans',
  // javac's own classes, public in JDK 8's tools.jar: test kits for annotation processors that call
  // JavacTool directly, Lombok and source formatters use them.
  'jdk.compiler/com.sun.tools.javac.api',
  'jdk.compiler/com.sun.tools.javac.code',
  'jdk.compiler/com.sun.tools.javac.comp',
  'jdk.compiler/com.sun.tools.javac.file',
  'jdk.compiler/com.sun.tools.javac.main',
  'jdk.compiler/com.sun.tools.javac.model',
  'jdk.compiler/com.sun.tools.javac.parser',
  'jdk.compiler/com.sun.tools.javac.processing',
  'jdk.compiler/com.sun.tools.javac.tree',
  'jdk.compiler/com.sun.tools.javac.util',
];

/** JVM options that open PACKAGES to code on the class path. */
export const OPEN_PACKAGES = PACKAGES.map((p) => `--add-opens=${p}=ALL-UNNAMED`).join(' ');

/** Whether a POM compiling for `release` (javaRelease; undefined where it names none) was written for a JDK that allowed the reflection. */
export function opensPackages(release: string | undefined): boolean {
  return release === undefined || Number(release) < STRONG_ENCAPSULATION;
}
