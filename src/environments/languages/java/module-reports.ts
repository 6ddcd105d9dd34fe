import { shellQuote } from '../../../process/shell-quote';

/**
 * Reports of test classes that share a PR test's name but are another module's. A run's `-Dtest=CLASS`
 * selection reaches every module of the reactor, and in a multi-module build several modules may each
 * have a test class of that name (one `InvocationTest` per logging binding, say). Outcomes are keyed by
 * `CLASS#method`, so another module's same-named test, passing before and after, hid the PR's own: a
 * PR test that does not compile before its change (no report from its module) read as passing then.
 * A report counts unless its module has a test source of that class which is not among the PR's
 * files; a module that runs the class without a source of its own (sources added from elsewhere)
 * still counts.
 */

/**
 * A shell function, `other_module REPORT`, that succeeds where REPORT (a Surefire
 * `…/target/surefire-reports/TEST-CLASS.xml`) is another module's class of the same name as one of the
 * PR's test `classes` (mavenTestClasses of its `files`); never where there are none.
 */
export function otherModuleCheck(classes: string[], files: string[]): string {
  const prFiles = files.filter((f) => /(?:^|\/)src\/test\/java\d*\/.+\.java$/.test(f));
  const cases = (list: string[]) => list.map(shellQuote).join('|') || "''";
  return [
    'other_module() {',
    // The module's directory, and the report's top-level class (a nested class's report is its outer's).
    `  d=\${1%/target/surefire-reports/*}; t=\${1##*/TEST-}; t=\${t%.xml}; t=\${t%%\\$*}`,
    `  case "$t" in ${cases(classes)}) ;; *) return 1 ;; esac`,
    '  other=1',
    `  for s in "$d"/src/test/java*/$(printf '%s' "$t" | tr . /).java; do`,
    '    [ -f "$s" ] || continue',
    `    case "\${s#./}" in ${cases(prFiles)}) return 1 ;; esac`,
    '    other=0',
    '  done',
    '  return $other',
    '}',
  ].join('\n');
}
