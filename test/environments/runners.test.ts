import { runnerFor } from '../../src/environments/languages';
import { KEEP_COLLECTING, PYTEST } from '../../src/environments/languages/python/pytest';
import { nodeRangeAllows } from '../../src/environments/languages/node/detect';
import { parseCaseLines } from '../../src/environments/runners/case-lines';
import { stageReason } from '../../src/stage-reason';

test('CTest reports each test and the Unity or GoogleTest cases it printed, so FAIL_TO_PASS can name a case', () => {
  const output = [
    'the build failed (tests that need it will not run):',
    'CHAINSMITH-CTEST run parse_number',
    'CHAINSMITH-CTEST-OUT parse_number tests/parse_number.c:95:assert_parse_number_should_parse_zero:PASS',
    'CHAINSMITH-CTEST-OUT parse_number tests/parse_number.c:96:parse_number_should_parse_negative:FAIL: Expected 1 Was 0',
    'CHAINSMITH-CTEST-OUT parse_number tests/parse_number.c:97:later:IGNORE',
    'CHAINSMITH-CTEST fail misc_tests',
    'CHAINSMITH-CTEST notrun new_test',
    'CHAINSMITH-CTEST-OUT gtests [       OK ] Json.Parses (0 ms)',
    'CHAINSMITH-CTEST run gtests',
  ].join('\n');
  expect(runnerFor('ctest').parse(output)).toEqual([
    { id: 'parse_number', outcome: 'passed' },
    { id: 'parse_number::assert_parse_number_should_parse_zero', outcome: 'passed' },
    { id: 'parse_number::parse_number_should_parse_negative', outcome: 'failed' },
    { id: 'parse_number::later', outcome: 'skipped' },
    { id: 'misc_tests', outcome: 'failed' },
    { id: 'new_test', outcome: 'failed' },
    { id: 'gtests', outcome: 'passed' },
    { id: 'gtests::Json.Parses', outcome: 'passed' },
  ]);
  // No report at all (CTest never ran): only the exit code is known.
  expect(runnerFor('ctest').parse('make: *** [all] Error 2')).toBeUndefined();
  expect(runnerFor('ctest').command([], 'make check')).toBe('make check');
});

test("CTest's command opens with its build and its test run, within the head a stage's reason keeps", () => {
  const command = runnerFor('ctest').command(['tests/misc_tests.c']);
  const head = stageReason('tests-not-runnable', 'no report', { command, exitCode: 2, output: '' }).command ?? '';
  expect(head).toMatch(/cmake --build \S+ \$\{targets:\+--target \$targets\}/);
  expect(head).toMatch(/ctest \$\{tests:\+-R "\$tests"\}/);
});

test('make, meson and node runs are read per case from TAP, meson, automake and check-mark lines; other output leaves the exit code', () => {
  expect(
    parseCaseLines(
      [
        'ok 1 - adds',
        'not ok 2 - subtracts',
        'ok 3 - later # SKIP not yet',
        'not ok 4 - known bug # TODO fix the parser',
        'ok 5 - fixed by accident # todo',
        ' 1/2 unit-tests        OK              0.02s',
        ' 2/2 slow        FAIL            1.20s   exit status 1',
      ].join('\n'),
    ),
  ).toEqual([
    { id: 'adds', outcome: 'passed' },
    { id: 'subtracts', outcome: 'failed' },
    { id: 'later', outcome: 'skipped' },
    { id: 'known bug', outcome: 'xfailed' },
    { id: 'fixed by accident', outcome: 'xpassed' },
    { id: 'unit-tests', outcome: 'passed' },
    { id: 'slow', outcome: 'failed' },
  ]);
  // automake's test driver, a TAP script under its TAP driver, and the summary that follows (no case).
  expect(
    parseCaseLines(
      [
        'PASS: tests/parse.sh',
        'XFAIL: tests/known-bug.sh',
        'XPASS: tests/fixed-by-accident.sh',
        'ERROR: tests/crash.sh',
        'FAIL: t/basic.sh 2 - subtracts',
        'SKIP: t/basic.sh 3 - later # SKIP not yet',
        'PASS: t/basic.sh 4',
        // The same description twice in one script: one id, the worse outcome.
        'FAIL: t/basic.sh 5 - parses',
        'PASS: t/basic.sh 6 - parses',
        // A description without a dash (bats), and a script's own count, which names no test.
        'PASS: t/a.bats 1 adds',
        'FAIL: 0',
        '# PASS:  2',
        '# FAIL:  1',
      ].join('\n'),
    ),
  ).toEqual([
    { id: 'tests/parse.sh', outcome: 'passed' },
    { id: 'tests/known-bug.sh', outcome: 'xfailed' },
    { id: 'tests/fixed-by-accident.sh', outcome: 'failed' },
    { id: 'tests/crash.sh', outcome: 'failed' },
    { id: 't/basic.sh - subtracts', outcome: 'failed' },
    { id: 't/basic.sh - later', outcome: 'skipped' },
    { id: 't/basic.sh 4', outcome: 'passed' },
    { id: 't/basic.sh - parses', outcome: 'failed' },
    { id: 't/a.bats - adds', outcome: 'passed' },
  ]);
  expect(runnerFor('node').parse('  ✓ parses dates (3 ms)\n  ✕ rejects junk (1 ms)\n')).toEqual([
    { id: 'parses dates', outcome: 'passed' },
    { id: 'rejects junk', outcome: 'failed' },
  ]);
  // vitest: bare durations, and a line per file that is not a test.
  const vitest =
    ' ✓ src/a.test.ts (2 tests) 3ms\n   ✓ dates > parses 1ms\n   × dates > rejects junk 12.5ms\n ❯ src/b.test.ts (1 test | 1 failed) 4ms\n';
  expect(runnerFor('node').parse(vitest)).toEqual([
    { id: 'dates > parses', outcome: 'passed' },
    { id: 'dates > rejects junk', outcome: 'failed' },
  ]);
  // A time at a name's end is the name's own where the reporter printed none after it ("debounces 100ms 3ms").
  expect(
    runnerFor('node')
      .parse('   ✓ debounces 100ms 3ms\n')
      ?.map((c) => c.id),
  ).toEqual(['debounces 100ms']);
  // Where it did not, names that differ only in that time share an id: a failure among them is kept.
  expect(runnerFor('node').parse('   ✓ debounces 100ms\n   × debounces 200ms\n   ✓ debounces 300ms\n')).toEqual([
    { id: 'debounces', outcome: 'failed' },
  ]);
  expect(runnerFor('make').parse('cc -o t t.c\n./t\nall good\n')).toBeUndefined();
  expect(runnerFor('exit-code').parse('ok 1 - looks like TAP')).toBeUndefined();
  expect(runnerFor('pytest').command(['tests/a b.py', 'tests/c.py'])).toBe(
    `${PYTEST} ${KEEP_COLLECTING} -rpsxXfE 'tests/a b.py' tests/c.py`,
  );
  // Fixtures are not handed to pytest (it would run nothing); a PR that changes only fixtures runs the suite.
  expect(
    runnerFor('pytest').command([
      'tests/data/x.json',
      'tests/test_x.py',
      'tests/conftest.py',
      'docs/test_api.txt',
      'tests/snap/a.txt',
    ]),
  ).toBe(`${PYTEST} ${KEEP_COLLECTING} -rpsxXfE tests/test_x.py tests/conftest.py docs/test_api.txt`);
  expect(runnerFor('pytest').command(['tests/data/x.json'])).toBe(`${PYTEST} ${KEEP_COLLECTING} -rpsxXfE`);
});

test("a package's engines.node range is checked against the image's Node 18", () => {
  for (const yes of ['>=14', '^18.0.0', '16.x || 18.x', '>=12 <20', '*', 'lts'])
    expect(nodeRangeAllows(yes, 18)).toBe(true);
  for (const no of ['>=20', '^16.14.0', '14.x || 16.x', '<18', '>=12 <18']) expect(nodeRangeAllows(no, 18)).toBe(false);
});
