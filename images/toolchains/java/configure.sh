# JUnit Vintage before 5.7.2 (junit5 #2601) throws a NullPointerException while it builds the warning
# that a JUnit 3 `suite()` could not be filtered completely (the suite's description has no test class);
# Surefire filters by class wherever `-Dtest` names one, as every run of chainsmith's does, so the fork
# crashed before any test ran (commons-collections' BulkTest suites under Vintage 5.6). The JDK's own
# logging configuration, which every JVM reads where no `java.util.logging.config.file` names another,
# turns the Vintage engine's warnings off. Not an option in JDK_JAVA_OPTIONS: every JVM that reads the
# variable notes it on stderr ("Picked up JDK_JAVA_OPTIONS"), which a project's test of a child JVM's
# output would see and upstream's would not.
set -euo pipefail
jdk=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
printf '\n%s\n' 'org.junit.vintage.level = SEVERE' >>"$jdk/conf/logging.properties"

# A POM written for a Java before 16 needs the JDK's packages open (src/environments/languages/java/open-packages.ts)
# in every JVM: Maven's, Surefire's forked test JVM and the JVMs a test starts from java.home. JDK_JAVA_OPTIONS
# would reach them all, but every one would print "NOTE: Picked up JDK_JAVA_OPTIONS" on stderr, which a
# test of a child JVM's output sees and upstream's did not. The JDK's own launcher is instead a script
# that puts CHAINSMITH_JAVA_OPTIONS (set by such a recipe, empty otherwise) before the caller's
# arguments, as the launcher would the variable's, and prints nothing. The real launcher stays in bin/,
# where it finds the JDK from its own path.
mv "$jdk/bin/java" "$jdk/bin/java.real"
printf '#!/bin/sh\nexec %s ${CHAINSMITH_JAVA_OPTIONS-} "$@"\n' "$jdk/bin/java.real" >"$jdk/bin/java"
chmod 755 "$jdk/bin/java"
