import { classifyTests, outputCut, stageCheck, unseenBefore } from '../../../../src/judge/gold-validation';
import { serviceNeeded } from '../../../../src/judge/service-needed';
import { parsePytestSummary } from '../../../../src/environments/languages/python/pytest';

const OUTPUT = `..F
=================================== FAILURES ===================================
____________________________ test_even ____________________________
E   assert 3 == 2.5
=========================== short test summary info ============================
PASSED tests/test_median.py::test_odd
PASSED tests/test_median.py::test_param[1-2]
FAILED tests/test_median.py::test_even - assert 3 == 2.5
ERROR tests/test_other.py - ModuleNotFoundError: No module named 'x'
SKIPPED [1] tests/test_median.py:20: needs numpy
XFAIL tests/test_median.py::test_known - bug 12
1 failed, 2 passed, 1 skipped, 1 xfailed, 1 error in 0.05s`;

test("pytest's short summary becomes per-test outcomes; skips decide nothing", () => {
  expect(parsePytestSummary(OUTPUT)).toEqual([
    { id: 'tests/test_median.py::test_odd', outcome: 'passed' },
    { id: 'tests/test_median.py::test_param[1-2]', outcome: 'passed' },
    { id: 'tests/test_median.py::test_even', outcome: 'failed' },
    { id: 'tests/test_other.py', outcome: 'error' },
    { id: 'tests/test_median.py::test_known', outcome: 'xfailed' },
  ]);
  expect(parsePytestSummary('1 passed in 0.01s')).toBeUndefined();
});

/** pytest 3 and 4 (2016–2019) wrote a failure as FAIL: an era's failing tests were not seen at all. */
test("pytest before 5.0's FAIL lines are failures", () => {
  const old = `.F
=========================== short test summary info ============================
PASSED tests/test_a.py::test_ok
FAIL tests/test_a.py::test_bad
1 failed, 1 passed in 0.03 seconds`;
  expect(parsePytestSummary(old)).toEqual([
    { id: 'tests/test_a.py::test_ok', outcome: 'passed' },
    { id: 'tests/test_a.py::test_bad', outcome: 'failed' },
  ]);
});

test('gold validation sorts tests into FAIL_TO_PASS, PASS_TO_PASS and broken', () => {
  const before = [
    { id: 'a::old', outcome: 'passed' as const },
    { id: 'a::fixed', outcome: 'failed' as const },
  ];
  const after = [
    { id: 'a::old', outcome: 'passed' as const },
    { id: 'a::fixed', outcome: 'passed' as const },
    { id: 'a::added', outcome: 'passed' as const },
    { id: 'a::flaky', outcome: 'failed' as const },
    { id: 'a::ignored', outcome: 'skipped' as const },
  ];
  expect(classifyTests(before, after, 'pytest')).toEqual({
    command: 'pytest',
    failToPass: ['a::fixed', 'a::added'],
    passToPass: ['a::old'],
    brokenOnGold: ['a::flaky'],
  });
});

test('a report cut short before the change makes no FAIL_TO_PASS of a test it does not name', () => {
  const cut = 'FAILED a::fixed - assert\n[... 123 characters cut from the middle of this output ...]\nPASSED a::old';
  expect(outputCut(cut)).toBe(true);
  expect(outputCut('PASSED a::old')).toBe(false);
  const before = [
    { id: 'a::fixed', outcome: 'failed' as const },
    { id: 'a::old', outcome: 'passed' as const },
  ];
  const after = ['a::fixed', 'a::old', 'a::unnamed'].map((id) => ({ id, outcome: 'passed' as const }));
  // a::unnamed may have passed in the part cut away: it decides nothing.
  expect(classifyTests(before, after, 'pytest', { beforeComplete: false })).toEqual({
    command: 'pytest',
    failToPass: ['a::fixed'],
    passToPass: ['a::old'],
    brokenOnGold: [],
  });
});

test("tests the PR's test files kept from building at the base are FAIL_TO_PASS only where the PR edited them or they did not pass there in their base versions", () => {
  // The PR's new test used an API the base lacks: its whole test source (or package, or target) did not build, so the run before names none.
  const before = [{ id: 'a::other_file', outcome: 'passed' as const }];
  const atBase = ['a::other_file', 'a::unchanged', 'a::edited'].map((id) => ({ id, outcome: 'passed' as const }));
  const baseline = {
    cases: [...atBase, { id: 'a::was_failing', outcome: 'failed' as const }],
    complete: true,
    touched: new Set(['edited']),
  };
  const after = ['a::other_file', 'a::unchanged', 'a::edited', 'a::was_failing', 'a::added'].map((id) => ({
    id,
    outcome: 'passed' as const,
  }));
  // a::edited passed at the base in its base version, but the PR edited it: its PR version did not build there.
  expect(classifyTests(before, after, 'cmd', { baseline })).toEqual({
    command: 'cmd',
    failToPass: ['a::edited', 'a::was_failing', 'a::added'],
    passToPass: ['a::other_file', 'a::unchanged'],
    brokenOnGold: [],
  });
  // A baseline cut short: a test it does not name may have passed there, so it decides nothing.
  expect(classifyTests(before, after, 'cmd', { baseline: { ...baseline, complete: false } }).failToPass).toEqual([
    'a::edited',
    'a::was_failing',
  ]);
  expect(unseenBefore(before, after)).toBe(true);
  expect(unseenBefore(after, after)).toBe(false);
});

test("tests that could not reach a database or broker give the stage's reason; a connection test of the project's own does not", () => {
  const pg =
    'E   psycopg2.OperationalError: connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused\nFAILED tests/test_db.py::test_insert';
  expect(serviceNeeded(pg)).toBe(
    'connection to server at "localhost" (127.0.0.1), port 5432 failed: Connection refused',
  );
  expect(
    serviceNeeded('--- FAIL: TestCache\n    cache_test.go:12: dial tcp 127.0.0.1:6379: connect: connection refused'),
  ).toBe('dial tcp 127.0.0.1:6379: connect: connection refused');
  expect(
    serviceNeeded('FAILED tests/test_client.py::test_refused - ConnectionRefusedError: [Errno 111] Connection refused'),
  ).toBeUndefined();
  const gold = {
    command: 'pytest',
    failToPass: [],
    passToPass: ['a'],
    brokenOnGold: [],
    status: 'no-verifying-test' as const,
    problem: 'its tests seem to need a service the sandbox does not run (their output says "x")',
  };
  expect(stageCheck(gold, false).reason).toBe(
    `no test of the PR fails before it and passes after it, and no judge model is configured; ${gold.problem}`,
  );
});
