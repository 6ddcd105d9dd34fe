/**
 * How every Maven run of an environment is configured, on the host's fetch and in the image alike:
 * what the one must fetch is what the other runs.
 */

/**
 * Maven's own JVM (it compiles in-process) with the quick JIT tier only and one GC thread: a fetch, a
 * build's proof or a test run is one short-lived JVM, where C2's compiling costs more than it saves.
 * Halves the CPU of a compile-and-test of jsoup (23.6 to 11.8 CPU-seconds); Surefire's forked JVM,
 * whose flags are the project's (argLine), is left alone. A MAVEN_OPTS the user or image set wins.
 * Its threads' stacks are 8 MB, not 1: javac 17 recurses once per call of a chain
 * (`b.put(…).put(…)…`), and a test source with a chain of some hundreds of calls, which the javac of
 * its day (7 to 11) compiled, overflowed it (StackOverflowError) before and after a change alike.
 */
export const QUICK_JVM = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss8m';
/** The same as a shell line, for runs in a container. */
export const MAVEN_OPTS = `export MAVEN_OPTS="\${MAVEN_OPTS:-${QUICK_JVM}}"`;

/**
 * Plugins that check, sign or document a build and that no test outcome depends on, skipped through
 * the property each reads (the plugin is still resolved and configured; only its work is skipped, and
 * what that work would fetch, an API signature, a rule set, is then never needed): where a POM binds
 * them before `test` (enforcer and checkstyle at validate, animal-sniffer at process-classes, JaCoCo's
 * agent at initialize) they cost every test run their time. A POM's own `<skip>` configuration wins.
 *
 * `bundle.skip`: maven-bundle-plugin's `manifest` goal, bound at process-classes by OSGi libraries,
 * has bnd analyse every class for the jar's OSGi headers (jsoup: 0.8 of a 5.8 CPU-second test run
 * with nothing to recompile). It writes target/classes/META-INF/MANIFEST.MF: packaging metadata the
 * class loader does not read from a directory; a test that reads that file as a resource would find
 * none here. Work left out, as the checks above are.
 */
export const SKIPPED: Readonly<Record<string, string>> = Object.fromEntries(
  [
    'enforcer.skip',
    'checkstyle.skip',
    'animal.sniffer.skip',
    'rat.skip',
    'jacoco.skip',
    'spotbugs.skip',
    'pmd.skip',
    'cpd.skip',
    'license.skip',
    'spotless.check.skip',
    'forbiddenapis.skip',
    'japicmp.skip',
    'revapi.skip',
    'maven.javadoc.skip',
    'maven.source.skip',
    'gpg.skip',
    'bundle.skip',
  ].map((p) => [p, 'true']),
);

/** SKIPPED (unless `skipped` is false: the image's settings hold them) and `extra` as `-Dname=value` arguments. */
export function propertyArgs(extra: Record<string, string> = {}, skipped = true): string[] {
  return Object.entries({ ...(skipped ? SKIPPED : {}), ...extra }).map(([k, v]) => `-D${k}=${v}`);
}

/**
 * The image's settings.xml: offline, on the store at `localRepository`, with SKIPPED and `extra` as an
 * active profile's properties, which reach every project's model (an agent's own runs included).
 */
export function settings(localRepository: string, extra: Record<string, string> = {}): string {
  const properties = Object.entries({ ...SKIPPED, ...extra })
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('');
  return (
    `<settings><localRepository>${localRepository}</localRepository><offline>true</offline>` +
    `<profiles><profile><id>chainsmith</id><properties>${properties}</properties></profile></profiles>` +
    '<activeProfiles><activeProfile>chainsmith</activeProfile></activeProfiles></settings>'
  );
}
