import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { REPORT_END, reportStart, RUN_DIR, worse } from '../../runners/shell';
import { shellQuote } from '../../../process/shell-quote';
import { MAVEN_OPTS } from './settings';

/** Offline (the image's settings say so too); -fae runs every module's tests despite an earlier module's failures. */
const MVN_TEST = 'mvn -o -B -fae test -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false';
const REPORT = reportStart('surefire reports');
/** The parts of a Surefire report that decide outcomes, as the runner prints them (or as the XML has them). */
const TOKEN =
  /<testcase\b[^>]*>|<(?:failure|error|skipped|flakyFailure|flakyError|rerunFailure|rerunError)\b[^>]*>|<\/testcase>/g;
const ATTRIBUTE = /(\w+)="([^"]*)"/g;
/** `report: ./target/surefire-reports/TEST-org.a.BTest.xml`: the class of its test cases that name none. */
const REPORT_LINE = /^report: .*\/TEST-(.+)\.xml$/gm;

/**
 * Test classes for the PR's test files: `src/test/java/org/a/BTest.java` (in any module, and
 * `src/test/java11/…` alike) is `org.a.BTest`. Without a Java test source among them (only resources
 * changed, say), every test runs.
 */
export function mavenTestClasses(files: string[]): string[] | undefined {
  const classes = new Set<string>();
  for (const file of files) {
    const m = /(?:^|\/)src\/test\/java\d*\/(.+)\.java$/.exec(file);
    if (m) classes.add(m[1].replace(/\//g, '.'));
  }
  return classes.size ? [...classes].sort() : undefined;
}

/**
 * Per-test outcomes from Surefire's XML reports (target/surefire-reports/TEST-*.xml), whole or as the
 * runner prints them (only the `<testcase …>` tags and the outcome tags inside). Ids are
 * `CLASS#method` (JUnit 5 parameterized cases keep their index: `CLASS#method(String)[2]`). A module
 * that does not compile writes no report: its tests count as not passing.
 */
export function parseSurefire(output: string): TestCase[] | undefined {
  const cases = new Map<string, TestCase['outcome']>();
  let open: { id: string; outcome: TestCase['outcome'] } | undefined;
  const close = () => {
    if (open) cases.set(open.id, worse(cases.get(open.id), open.outcome));
    open = undefined;
  };
  // Report headers and tags in the order printed: each tag takes the class of the report above it.
  const headers = [...output.matchAll(REPORT_LINE)].map((m) => ({ at: m.index ?? 0, cls: m[1] }));
  const classAt = (at: number) => headers.filter((h) => h.at < at).pop()?.cls;
  for (const m of output.matchAll(TOKEN)) {
    const token = m[0];
    if (token.startsWith('<testcase')) {
      close();
      const attrs = Object.fromEntries([...token.matchAll(ATTRIBUTE)].map(([, k, v]) => [k, unescapeXml(v)]));
      if (!attrs.name) continue;
      const cls = attrs.classname ?? classAt(m.index ?? 0);
      open = { id: cls ? `${cls}#${attrs.name}` : attrs.name, outcome: 'passed' };
      if (token.endsWith('/>')) close();
    } else if (token === '</testcase>') {
      close();
    } else if (open) {
      // A flaky test passed on a rerun; a rerun failure follows the failure it repeats.
      if (token.startsWith('<failure')) open.outcome = 'failed';
      else if (token.startsWith('<error')) open.outcome = 'error';
      else if (token.startsWith('<skipped')) open.outcome = worse(open.outcome, 'skipped');
    }
  }
  close();
  return cases.size ? [...cases].map(([id, outcome]) => ({ id, outcome })) : undefined;
}

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (e in named) return named[e];
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

/**
 * Maven's console output goes to a file (its tail is printed: the failures and the build result);
 * then the outcome tags of every Surefire report, one per line under the report's name. Reports of
 * an earlier run are removed first: `git clean` keeps the ignored target/ directories.
 */
export const mavenRunner: TestRunner<'maven'> = {
  name: 'maven',
  command(files, override) {
    const classes = mavenTestClasses(files);
    const base = override ?? (classes ? `${MVN_TEST} -Dtest=${shellQuote(classes.join(','))}` : MVN_TEST);
    const log = `${RUN_DIR}/chainsmith-mvn.log`;
    return [
      `find . -type d -path '*/target/surefire-reports' -prune -exec rm -rf {} +`,
      MAVEN_OPTS,
      `${base} > ${log} 2>&1; status=$?`,
      `tail -n 80 ${log}`,
      `echo ${shellQuote(REPORT)}`,
      // Shorter lines: no times, and no class name where it is the report's own (TEST-CLASS.xml).
      `find . -type f -path '*/target/surefire-reports/TEST-*.xml' | sort | while read -r f; do echo "report: $f"; c=\${f##*/TEST-}; c=\${c%.xml}; ` +
        `grep -oE '<testcase [^>]*>|<(failure|error|skipped|flakyFailure|flakyError|rerunFailure|rerunError)[ />][^>]*>|</testcase>' "$f" ` +
        String.raw`| sed -E "s/ classname=\"$c\"//; s/ time=\"[^\"]*\"//; s/^<(failure|error|rerunFailure|rerunError|flakyFailure|flakyError) .*/<\1>/"; done`,
      `echo ${shellQuote(REPORT_END)}`,
      'exit $status',
    ].join('\n');
  },
  parse: parseSurefire,
};
