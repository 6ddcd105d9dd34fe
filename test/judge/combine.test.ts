// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { combine } from '../../src/judge/combine';
import type { GoldTests, TestSignal } from '../../src/schemas';

const gold: GoldTests = {
  command: 'pytest',
  failToPass: ['t.py::test_new_a', 't.py::test_new_b'],
  passToPass: ['t.py::test_old'],
  brokenOnGold: [],
};

function run(outcomes: Record<string, 'passed' | 'failed'>, output = ''): TestSignal {
  const cases = Object.entries(outcomes).map(([id, outcome]) => ({ id, outcome }));
  const passed = cases.every((c) => c.outcome === 'passed');
  return { command: 'pytest', ran: true, passed, exitCode: passed ? 0 : 1, output, cases };
}

const allPass = run({ 't.py::test_new_a': 'passed', 't.py::test_new_b': 'passed', 't.py::test_old': 'passed' });
const regression = run(
  { 't.py::test_new_a': 'passed', 't.py::test_new_b': 'passed', 't.py::test_old': 'failed' },
  'FAILED t.py::test_old - assert 3 == 2\n1 failed, 2 passed',
);

test('passing tests leave the model score as it is; they never lift it', () => {
  expect(combine(allPass, { score: 0.9, feedback: 'ok' }, 0.8, gold)).toMatchObject({
    score: 0.9,
    passed: true,
    basis: 'model+tests',
  });
  expect(combine(allPass, { score: 0.6, feedback: 'misses a case' }, 0.8, gold)).toMatchObject({
    score: 0.6,
    passed: false,
  });
});

test('a PASS_TO_PASS test that now fails vetoes the model: 0.5 × the passing share', () => {
  const j = combine(regression, { score: 0.95, feedback: 'Looks equivalent.' }, 0.8, gold);
  expect(j).toMatchObject({ score: 0.3333, passed: false, basis: 'model+tests' });
  expect(j.outcome).toMatchObject({
    checked: 'per-test',
    failing: ['t.py::test_old'],
    failToPass: { passing: 2, total: 2 },
    passToPass: { passing: 0, total: 1 },
  });
  // The agent is told which test and why, after the model's own feedback.
  expect(j.feedback).toBe(
    'Looks equivalent.\n\nThese tests of the task do not pass yet:\n- t.py::test_old - assert 3 == 2',
  );
});

test('a FAIL_TO_PASS test missing from the report (e.g. a collection error) counts as failing', () => {
  const partial = run({ 't.py::test_old': 'passed' });
  expect(combine(partial, undefined, 0.8, gold)).toMatchObject({
    score: round(0.5 / 3),
    basis: 'tests',
    outcome: { failing: ['t.py::test_new_a', 't.py::test_new_b'] },
  });
});

test('without a gold validation only the exit code counts', () => {
  const failed: TestSignal = {
    command: 'pytest',
    ran: true,
    passed: false,
    exitCode: 1,
    output: 'E   assert 3 == 2.5',
  };
  expect(combine(failed, { score: 0.9, feedback: '' }, 0.8)).toMatchObject({
    score: 0,
    passed: false,
    outcome: { checked: 'exit-code' },
  });
  expect(combine(failed, undefined, 0.8).feedback).toContain('assert 3 == 2.5');
  expect(combine({ ...failed, passed: true, exitCode: 0 }, undefined, 0.8)).toMatchObject({
    score: 1,
    passed: true,
    basis: 'tests',
  });
});

test('the model alone decides when the PR has no test; with neither, nothing verifies the stage', () => {
  const none: TestSignal = {
    command: 'pytest',
    ran: false,
    passed: false,
    exitCode: -1,
    output: 'the PR changes no test file',
  };
  expect(combine(none, { score: 0.85, feedback: '' }, 0.8)).toMatchObject({
    score: 0.85,
    passed: true,
    basis: 'model',
  });
  expect(combine(none, undefined, 0.8)).toMatchObject({ score: 0, passed: false, basis: 'none' });
});

test('the threshold is the configured one', () => {
  expect(combine(allPass, { score: 0.85, feedback: '' }, 0.9, gold).passed).toBe(false);
  expect(combine(allPass, { score: 0.85, feedback: '' }, 0.85, gold).passed).toBe(true);
});

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

test('a suite broken whole: the feedback names the first 50 failing tests with their reasons and counts the rest', () => {
  const ids = Array.from({ length: 120 }, (_, i) => `t.py::test_${i}`);
  const wide: GoldTests = { command: 'pytest', failToPass: [], passToPass: ids, brokenOnGold: [] };
  const broken = run(
    Object.fromEntries(ids.map((id) => [id, 'failed' as const])),
    ids.map((id, i) => `FAILED ${id} - assert ${i} == 0`).join('\n'),
  );
  const lines = combine(broken, undefined, 0.8, wide).feedback.split('\n').slice(1);
  expect(lines).toHaveLength(51);
  expect(lines[0]).toBe('- t.py::test_0 - assert 0 == 0');
  expect(lines[49]).toBe('- t.py::test_49 - assert 49 == 0');
  expect(lines[50]).toBe('- and 70 more');
});
