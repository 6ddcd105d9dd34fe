/**
 * JUnit Vintage before 5.7.2 (junit5 #2601) throws a NullPointerException while it builds the warning
 * that a JUnit 3 `suite()` could not be filtered completely: the suite's description has no test class.
 * Surefire filters by class wherever `-Dtest` names one, as every run here does (maven.ts), so the
 * fork crashed before any test ran, before and after a change alike (commons-collections' BulkTest
 * suites under Vintage 5.6); the project's own unfiltered `mvn test` never built that warning. Every
 * JVM reads a java.util.logging configuration that is the JDK's own with the Vintage engine's warnings
 * off; a project's `-Djava.util.logging.config.file` (argLine, after JDK_JAVA_OPTIONS) wins.
 */

/** The shell line that writes the JDK's logging.properties, with Vintage's warnings off, to `path`. */
export function quietVintageSetup(path: string): string {
  const jdk = 'j=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")';
  return `${jdk}; { cat "$j/conf/logging.properties"; echo; echo 'org.junit.vintage.level = SEVERE'; } > ${path}`;
}

/** The JVM option that makes every JVM read the configuration at `path`. */
export const quietVintageOption = (path: string) => `-Djava.util.logging.config.file=${path}`;
