import type { TestCase } from '../../schemas';
import { worse } from './shell';

/**
 * Per-case lines that C and C++ test frameworks print on their own, whatever runs them:
 *   Unity        tests/parse_number.c:95:assert_parse_number_should_parse_zero:PASS   (FAIL: msg, IGNORE)
 *   GoogleTest   [       OK ] Suite.name (0 ms)    [  FAILED  ] Suite.name (0 ms)
 *   TAP          ok 3 - name    not ok 4 - name    (# SKIP is a skip; # TODO an expected failure, or an unexpected pass)
 *   meson test   1/3 name    OK    0.01s
 *   automake     PASS: tests/parse.sh    FAIL: t/basic 3 - adds    (XFAIL, XPASS, SKIP, ERROR: `make check`'s test driver)
 * Ids are the case names, prefixed by `scope` (the test executable) where one is known. Colour codes
 * are read past: a framework may colour its lines whether or not it writes to a terminal (utest).
 */
// Unity's record, anywhere on its line: Unity ends a test's line only when the test concludes, so
// what the test printed without a newline (its own output, or the failure record of an assertion it
// expects to fail, as a framework's self-tests do) comes first. The line's last record is the verdict.
const UNITY = /[^\s:]+:\d+:(\w+):(PASS|FAIL|IGNORE)\b/g;
/** GoogleTest's time is `(0 ms)`; utest, which prints its lines, gives `(792ns)` or `(1.2us)`. */
const GTEST = /^\[\s+(OK|FAILED|SKIPPED)\s+\] (\w[\w/.]*\w)(?: \([\d.]+ ?[a-zµ]*\))?$/;
const COLOUR = /\x1b\[[0-9;]*m/g;
const MESON = /^\d+\/\d+\s+(\S.*?)\s+(OK|FAIL|SKIP|EXPECTEDFAIL|UNEXPECTEDPASS|TIMEOUT|ERROR)\s+\d/;
/** An automake test-driver line; a test run by its TAP driver adds the case's number and description. */
const AUTOMAKE = /^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): (?!\d+$)(\S.*?)(?:\s+#\s*(?:SKIP|TODO)\b.*)?$/;
const TAP = /^(ok|not ok) \d+(?: -)? ([^#]*?)\s*(#\s*(SKIP|TODO)\b.*)?$/i;

export function parseCaseLines(output: string, scope?: string): TestCase[] {
  const cases = new Map<string, TestCase['outcome']>();
  const key = (name: string) => (scope ? `${scope}::${name}` : name);
  const put = (name: string, outcome: TestCase['outcome']) => cases.set(key(name), outcome);
  for (const raw of output.split('\n')) {
    const line = raw.replace(COLOUR, '').trim();
    let m: RegExpMatchArray | null = [...line.matchAll(UNITY)].pop() ?? null;
    if (m) {
      put(m[1], m[2] === 'PASS' ? 'passed' : m[2] === 'FAIL' ? 'failed' : 'skipped');
      continue;
    }
    m = GTEST.exec(line);
    // GoogleTest repeats failures in its closing summary; the outcome is the same.
    if (m) {
      put(m[2], m[1] === 'OK' ? 'passed' : m[1] === 'FAILED' ? 'failed' : 'skipped');
      continue;
    }
    m = MESON.exec(line);
    if (m) {
      put(
        m[1],
        m[2] === 'OK' ? 'passed' : m[2] === 'EXPECTEDFAIL' ? 'xfailed' : m[2] === 'SKIP' ? 'skipped' : 'failed',
      );
      continue;
    }
    m = AUTOMAKE.exec(line);
    if (m) {
      // An expected failure is one (testPasses: no pass); an unexpected pass fails the suite, as a strict one.
      // Two cases of one script with the same description are one id: the worse outcome stands.
      const id = automakeCase(m[2]);
      const outcome =
        m[1] === 'PASS' ? 'passed' : m[1] === 'XFAIL' ? 'xfailed' : m[1] === 'SKIP' ? 'skipped' : 'failed';
      put(id, worse(cases.get(key(id)), outcome));
      continue;
    }
    m = TAP.exec(line);
    if (!m || !m[2]) continue;
    const ok = m[1].toLowerCase() === 'ok';
    const directive = m[4]?.toUpperCase();
    // A TODO case is one known not to work yet: failing is expected of it (testPasses: no pass), passing is a bonus TAP does not fail.
    put(
      m[2],
      directive === 'SKIP' ? 'skipped' : directive === 'TODO' ? (ok ? 'xpassed' : 'xfailed') : ok ? 'passed' : 'failed',
    );
  }
  return [...cases].map(([id, outcome]) => ({ id, outcome }));
}

/**
 * `t/basic.sh 3 - adds` → `t/basic.sh - adds` (`t/a.bats 3 adds` → `t/a.bats - adds`): a case's number moves when a case is added above it,
 * its description does not. Without a description the number is all that names the case.
 */
function automakeCase(name: string): string {
  const tap = /^(\S+) \d+(?: -)? (.+)$/.exec(name);
  return tap ? `${tap[1]} - ${tap[2]}` : name;
}
