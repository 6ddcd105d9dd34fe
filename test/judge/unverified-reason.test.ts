import { unverifiedReason, type UnverifiedRuns } from '../../src/judge/unverified-reason';
import type { TestSignal } from '../../src/schemas';

const run = (cases: TestSignal['cases'], exitCode = 0): TestSignal => ({
  command: 'go test ./...',
  ran: true,
  passed: exitCode === 0,
  exitCode,
  output: '--- SKIP: TestWindowsPaths (0.00s)\n',
  cases,
});
const runs = (after: TestSignal, passToPass: string[] = []): UnverifiedRuns => ({
  command: after.command,
  before: after,
  after,
  gold: { passToPass, brokenOnGold: [] },
  timeoutSeconds: 600,
});

/** A runner that reports skipped tests as such (go test's `skip`, Maven's `<skipped/>`), without a reason to quote. */
test('a run whose every reported test was skipped is not runnable, whatever its exit code', () => {
  const skipped = [
    { id: 'x TestWindowsPaths', outcome: 'skipped' as const },
    { id: 'x TestDrives', outcome: 'skipped' as const },
  ];
  expect(unverifiedReason(runs(run(skipped)))).toMatchObject({
    kind: 'tests-not-runnable',
    summary: "all 2 of the PR's reported tests are skipped in this environment, not run",
  });
});

test('a skip beside a test that ran, or beside tests that pass to pass, is no reason of its own', () => {
  const mixed = [
    { id: 'x TestWindowsPaths', outcome: 'skipped' as const },
    { id: 'x TestJoin', outcome: 'passed' as const },
  ];
  expect(unverifiedReason(runs(run(mixed), ['x TestJoin']))).toMatchObject({ kind: 'no-verifying-test' });
  const allSkipped = [{ id: 'x TestWindowsPaths', outcome: 'skipped' as const }];
  expect(unverifiedReason({ ...runs(run(allSkipped)), skip: 'Windows only' })).toMatchObject({
    summary: 'the PR\'s one reported test is skipped in this environment, not run ("Windows only")',
  });
});

test('a run that reports nothing and prints no skip keeps its own reason', () => {
  expect(unverifiedReason(runs({ ...run(undefined, 1), output: 'no tests to run' }))).toMatchObject({
    kind: 'tests-not-runnable',
    summary: "the PR's tests report no test after the change (exit code 1)",
  });
});
