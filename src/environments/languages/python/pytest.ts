import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { REPO_DIR } from '../../../container/sandbox';
import { shellQuote } from '../../../process/shell-quote';

/**
 * pytest's short test summary ("PASSED tests/a.py::test_x", "FAILED tests/a.py::test_y - assert …"),
 * asked for with -r. Collection errors name a file, not a test ("ERROR tests/a.py - ImportError"):
 * they are kept as such, and the tests inside count as not passing. pytest before 5.0 wrote a failure
 * "FAIL tests/a.py::test_y" (3.x and 4.x, 2016–2019): read as FAILED.
 */
const SUMMARY_LINE = /^(PASSED|FAILED|FAIL|ERROR|SKIPPED|XFAIL|XPASS) (\S.*)/;
const OUTCOME: Record<string, TestCase['outcome']> = {
  PASSED: 'passed',
  FAILED: 'failed',
  FAIL: 'failed',
  ERROR: 'error',
  SKIPPED: 'skipped',
  XFAIL: 'xfailed',
  XPASS: 'xpassed',
};

/**
 * The pytest flag that prints one summary line per test (passes included, without their output),
 * failures and errors last: nearest the end of the output, which a cut keeps.
 */
export const PYTEST_SUMMARY_FLAG = '-rpsxXfE';
/**
 * The test command of a Python project, and of a repository nothing was detected in (sandbox.testCommand's
 * default). No cache written into the checkout, so none blocks checking out another commit. pytest-randomly,
 * which a project's test dependencies may hold, needs that cache (it stops every run with an internal error
 * without it) and would shuffle the tests' order between the runs a stage compares: blocked too, and a
 * name pytest does not know is no error where the plugin is not installed.
 */
export const PYTEST = 'python3 -m pytest -q -p no:cacheprovider -p no:randomly';
/**
 * pytest from 3.0 on stops the whole run at a test file that cannot be collected (a module a PR's test
 * file imports that the environment lacks, a marker only an uninstalled plugin registers): the PR's
 * other files then run no test at all. This flag keeps them running, as pytest before 3.0 did, whose
 * argument parser does not know it: asked for only where the pytest the run imports is 3.0 or later.
 */
export const KEEP_COLLECTING = `$(python3 -c 'import pytest; print("--continue-on-collection-errors" if int(pytest.__version__.split(".")[0]) > 2 else "")' 2>/dev/null)`;

/**
 * The test id a summary line's rest opens with, whole: a parametrized id's brackets may hold spaces
 * (`test_x[a b] - reason`), so the id runs to the bracket that closes the one after its name, and
 * otherwise to the first space (a reason follows it).
 */
function summaryId(rest: string): string {
  const open = rest.indexOf('[');
  const space = rest.indexOf(' ');
  if (open < 0 || (space >= 0 && space < open)) return space < 0 ? rest : rest.slice(0, space);
  let depth = 0;
  for (let i = open; i < rest.length; i++) {
    if (rest[i] === '[') depth++;
    else if (rest[i] === ']' && --depth === 0 && (i + 1 === rest.length || rest[i + 1] === ' '))
      return rest.slice(0, i + 1);
  }
  return space < 0 ? rest : rest.slice(0, space);
}

export function parsePytestSummary(output: string): TestCase[] | undefined {
  const cases = new Map<string, TestCase['outcome']>();
  for (const line of output.split('\n')) {
    const m = SUMMARY_LINE.exec(line.trim());
    // "SKIPPED [1] tests/a.py:3: reason" names a location, not a test id: skips decide nothing.
    if (m && m[1] !== 'SKIPPED') cases.set(summaryId(m[2]), OUTCOME[m[1]]);
  }
  return cases.size ? [...cases].map(([id, outcome]) => ({ id, outcome })) : undefined;
}

/**
 * The test files pytest is given: Python files (a conftest.py or a helper module given is harmless) and
 * doctest files of pytest's default pattern (test*.txt). Any other file, a fixture such as
 * tests/data/x.json, makes pytest stop with "not found" (exit 4) and run no test at all, before the PR
 * and after it alike; a PR whose test files are all such files runs the whole suite.
 */
export function pytestFiles(files: string[]): string[] {
  return files.filter((f) => /\.py$/.test(f) || /(^|\/)test[^/]*\.txt$/.test(f));
}

export const pytestRunner: TestRunner<'pytest'> = {
  name: 'pytest',
  // A configured command (python3 -m pytest -x, tox -e py -- …) still gets the flags and the files.
  command: (files, override) =>
    [override ?? PYTEST, KEEP_COLLECTING, PYTEST_SUMMARY_FLAG, ...pytestFiles(files).map(shellQuote)].join(' '),
  parse: parsePytestSummary,
  runs: (command) => /\bpytest\b/.test(command),
  selects: { files: pytestFiles, described: 'Python files pytest could run' },
  failureLine: failureSummary,
  toolchainMismatch: unparsedCode,
  skipReason,
};

/**
 * "SKIPPED [2] tests/test_win.py:8: Windows only" (a skip inside a test) or "SKIPPED [1] tests/test_win.py:
 * Windows only" (a module skipped whole, before pytest 7 also with its line): the reason, then where.
 */
const SKIP_LINE = /^SKIPPED \[\d+\] (\S+?):(?:\d+:)? (.+)$/m;
function skipReason(output: string): string | undefined {
  const m = SKIP_LINE.exec(output);
  return m ? `${m[2].trim()} (${m[1]})` : undefined;
}

/**
 * A module of the checkout that the interpreter cannot parse, as an import's traceback shows it (its
 * file under the sandbox's repository, then the SyntaxError): code of another Python (`0600`,
 * `print "x"`), which no change to it makes importable on this one.
 */
const UNPARSED = new RegExp(`File "${REPO_DIR}/([^"]+)", line (\\d+)\\n(?:.*\\n){0,3}?E?\\s*(SyntaxError: .*)`);
function unparsedCode(output: string): string | undefined {
  const m = UNPARSED.exec(output);
  return m ? `${m[1]}, line ${m[2]}: ${m[3].trim()}` : undefined;
}

/** pytest's one-line reason for a failing test ("FAILED tests/a.py::t - assert 3 == 2.5"), if it printed one. */
function failureSummary(output: string, id: string): string | undefined {
  const line = output
    .split('\n')
    .find((l) => /^(FAILED|FAIL|ERROR) /.test(l) && summaryId(l.slice(l.indexOf(' ') + 1)) === id);
  return line?.replace(/^(FAILED|FAIL|ERROR) /, '').slice(0, 500);
}
