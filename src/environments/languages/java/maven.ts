import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { REPORT_END, reportStart, RUN_DIR, worse } from '../../runners/shell';
import { shellQuote } from '../../../process/shell-quote';
import { MAVEN_OPTS } from './settings';
import { MVN_THROUGH_DAEMON } from './maven-daemon';
import { leavingOutUncompilable, RESTORE_LEFT_OUT } from './uncompilable-tests';
import { otherModuleCheck } from './module-reports';

/** Offline (the image's settings say so too); -fae runs every module's tests despite an earlier module's failures. */
const MVN = 'mvn -o -B -fae';
const NO_TEST_FAILS = '-Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false';
const MVN_TEST = `${MVN} test ${NO_TEST_FAILS}`;
const LOG = `${RUN_DIR}/chainsmith-mvn.log`;
/** The last full run's test selection, written as it starts: the rerun's proof that nothing in the tree changed since. */
const ARGS = `${RUN_DIR}/chainsmith-mvn.args`;
/**
 * Goals a full run may have executed for its rerun to leave them out: they only turn the tree into
 * target/ (resources, classes; the same again on the same tree) or check it, skipped by the image's
 * settings (settings.ts) and setting nothing Surefire reads. Any other goal (JaCoCo's agent and the
 * dependency plugin's `properties` set properties an argLine reads, a build-helper adds sources or
 * sets properties) keeps the whole lifecycle.
 */
const REBUILD_ONLY = [
  'maven-resources-plugin:resources',
  'maven-resources-plugin:testResources',
  'maven-compiler-plugin:compile',
  'maven-compiler-plugin:testCompile',
  'maven-enforcer-plugin:enforce',
  'animal-sniffer-maven-plugin:check',
  'maven-bundle-plugin:manifest',
  'maven-checkstyle-plugin:check',
  'apache-rat-plugin:check',
];
/**
 * From a run's log (Maven 3.8's `--- artifactId:version:goal (execution) @ project ---` lines): its
 * Surefire `test` executions as goals to invoke directly (`…:test@default-test` takes that execution's
 * configuration), where the run built one project and executed nothing outside REBUILD_ONLY and
 * Surefire; nothing otherwise. Maven 3.9's lines (a plugin's prefix) match nothing here.
 */
const SUREFIRE_GOALS = String.raw`awk -v ok='${REBUILD_ONLY.join(' ')}' 'BEGIN { n = split(ok, o, " "); for (i = 1; i <= n; i++) allowed[o[i]] = 1 }
/^\[INFO\] --- / { if (NF != 7 || $5 != "@" || split($3, p, ":") != 3) { bad = 1; next }
  id = $4; gsub(/[()]/, "", id); projects[$6] = 1; k = p[1] ":" p[3]
  if (k == "maven-surefire-plugin:test") goals = goals " org.apache.maven.plugins:maven-surefire-plugin:" p[2] ":test@" id
  else if (!(k in allowed)) bad = 1 }
END { for (x in projects) c++; if (!bad && c == 1 && goals != "") print goals }'`;
const REPORT = reportStart('surefire reports');
/**
 * The log's last lines without Maven's `[ERROR]` echo of a stack trace (a forked JVM's crash carries
 * Surefire's whole trace in its message) and its help footer: a reason keeps the output's last 20
 * lines, and those held nothing but the trace and the footer, not the line saying what failed.
 */
const LOG_TAIL = String.raw`grep -vE '^\[ERROR\] ([[:space:]]+at |-> \[Help |\[Help [0-9]|To see the full stack trace|Re-run Maven using|For more information about the errors|$)' ${LOG} | tail -n 80`;
/** The parts of a Surefire report that decide outcomes, as the runner prints them (or as the XML has them). */
const OUTCOME_TAGS = 'failure|error|skipped|flakyFailure|flakyError|rerunFailure|rerunError';
const TOKEN = new RegExp(`<testcase\\b[^>]*>|<(?:${OUTCOME_TAGS})\\b[^>]*>|</testcase>`, 'g');
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
    const selection = testSelection(files);
    const run = override ?? `${MVN_TEST}${selection}`;
    return reported(
      [
        ...(override ? [] : [`printf '%s' ${shellQuote(selection)} > ${ARGS}`]),
        leavingOutUncompilable(logged(run), LOG, files),
      ],
      files,
    );
  },
  /**
   * Surefire's executions alone (`mvn surefire:test@execution`, no lifecycle before it), where the
   * full run before it in this sandbox selected the same tests, built one project, executed nothing
   * but REBUILD_ONLY's goals and Surefire, and no file outside .git and target/ has changed since it
   * started (a checkout, or a test writing into the tree, makes this run the full one). The lifecycle
   * left out would compile nothing and copy the same resources (a resource filtered with the build's
   * time would keep the first run's); Surefire runs the same executions with the same configuration on
   * the same classes. Profiled on jsoup (#2303's merge, one CPU): 5.3–7.0 CPU-s the full run with
   * nothing to compile, 3.8–4.3 Surefire alone.
   */
  rerun(files) {
    const selection = testSelection(files);
    const changed = `find . -path ./.git -prune -o -path ./target -prune -o -newer ${ARGS} -print -quit`;
    return reported(
      [
        `goals=; if [ -f ${LOG} ] && [ "$(cat ${ARGS} 2>/dev/null)" = ${shellQuote(selection)} ] && [ -z "$(${changed})" ]; then goals=$(${SUREFIRE_GOALS} ${LOG}); fi`,
        `if [ -n "$goals" ]; then ${logged(`${MVN}$goals ${NO_TEST_FAILS}${selection}`)}`,
        `else printf '%s' ${shellQuote(selection)} > ${ARGS}`,
        leavingOutUncompilable(logged(`${MVN_TEST}${selection}`), LOG, files),
        'fi',
      ],
      files,
    );
  },
  parse: parseSurefire,
};

/**
 * A Maven command with its console in LOG, setting `status`. In a subshell: `mvn` may be a function
 * (the daemon's client), and a trap that runs while a function's redirection holds would print into
 * LOG, not to the run's output.
 */
const logged = (command: string) => `(${command}) > ${LOG} 2>&1; status=$?`;

/** ` -Dtest=…` for the PR's test classes; nothing where no test source is among its files (every test runs). */
function testSelection(files: string[]): string {
  const classes = mavenTestClasses(files);
  return classes ? ` -Dtest=${shellQuote(classes.join(','))}` : '';
}

/**
 * A Maven run (`run`, which writes LOG and sets `status`) between the removal of earlier reports
 * (`git clean` keeps the ignored target/ directories) and the print of its log's tail and its reports,
 * without those of another module's test class named as one of the PR's test `files` (module-reports.ts).
 */
function reported(run: string[], files: string[]): string {
  return [
    `find . -type d -path '*/target/surefire-reports' -prune -exec rm -rf {} +`,
    MAVEN_OPTS,
    MVN_THROUGH_DAEMON,
    // A run its time limit stops (the sandbox's `timeout` signals the whole process group) still shows
    // what Maven was doing, the test class it was in: the log's last lines, else the reason has no tail.
    `trap ${shellQuote(`${LOG_TAIL}; ${RESTORE_LEFT_OUT}; exit 124`)} TERM`,
    ...run,
    LOG_TAIL,
    `echo ${shellQuote(REPORT)}`,
    otherModuleCheck(mavenTestClasses(files) ?? [], files),
    // Shorter lines: no times, and no class name where it is the report's own (TEST-CLASS.xml). An
    // outcome tag counts by its opening alone, printed bare: older Surefires (2.12.4, Maven 3.8's
    // default) write a message's newlines into its attribute as they are (JUnit's "expected:<a\n[b]>",
    // Hamcrest's "\nExpected: …"), so the tag ends lines further down: read as whole tags, it was a pass.
    `find . -type f -path '*/target/surefire-reports/TEST-*.xml' | sort | while read -r f; do other_module "$f" && continue; echo "report: $f"; c=\${f##*/TEST-}; c=\${c%.xml}; ` +
      `grep -oE '<testcase [^>]*>|<(${OUTCOME_TAGS})([ />][^>]*>?|$)|</testcase>' "$f" ` +
      String.raw`| sed -E "s/ classname=\"$c\"//; s/ time=\"[^\"]*\"//; s/^<(${OUTCOME_TAGS})([ />].*)?$/<\1>/"; done`,
    `echo ${shellQuote(REPORT_END)}`,
    'exit $status',
  ].join('\n');
}
