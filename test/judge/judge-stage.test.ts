import { ModelClient } from '../../src/model/client';
import { judgementSummary, judgeStage } from '../../src/judge/judge-stage';
import type { GoldTests, TestSignal } from '../../src/schemas';
import { FakeOpenAI } from '../support/fake-openai';

const gold: GoldTests = {
  command: 'pytest',
  failToPass: ['t.py::test_even'],
  passToPass: ['t.py::test_odd', 't.py::test_empty'],
  brokenOnGold: [],
};
const tests: TestSignal = {
  command: 'pytest',
  ran: true,
  passed: false,
  exitCode: 1,
  output: 'FAILED t.py::test_even - assert 3 == 2.5\n1 failed, 2 passed',
  cases: [
    { id: 't.py::test_even', outcome: 'failed' },
    { id: 't.py::test_odd', outcome: 'passed' },
    { id: 't.py::test_empty', outcome: 'passed' },
  ],
};

test('the judge model hears how the tests went against the gold validation, and failing tests cap its score', async () => {
  const fake = new FakeOpenAI(() => ({
    content: JSON.stringify({
      score: 0.9,
      feedback: 'Handles odd input.\nMore detail.',
      aspects: { behaviour: 'b', completeness: 'c', scope: 's', tests: 't' },
    }),
  }));
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const j = await judgeStage({
      task: 'Average the middle pair.',
      goldPatch: '+x',
      agentPatch: '+y',
      tests,
      gold,
      threshold: 0.8,
      judge: { client, model: 'judge' },
    });
    expect(fake.requests[0].body.messages[1].content).toContain(
      'of the tests the real change makes pass, 0 of 1 pass; of those that passed before, 2 of 2 still pass; not passing: t.py::test_even',
    );
    expect(j).toMatchObject({ score: 0.3333, passed: false, basis: 'model+tests', threshold: 0.8 });
    expect(j.feedback).toBe(
      'Handles odd input.\nMore detail.\n\nThese tests of the task do not pass yet:\n- t.py::test_even - assert 3 == 2.5',
    );
    expect(judgementSummary(j)).toBe(
      'model 0.90; tests 2 of 3 pass (failing: t.py::test_even); judge: Handles odd input.',
    );
  } finally {
    await fake.stop();
  }
});

test('without a judge model the tests decide and no request is made', async () => {
  const passing: TestSignal = {
    ...tests,
    passed: true,
    exitCode: 0,
    cases: tests.cases!.map((c) => ({ ...c, outcome: 'passed' as const })),
  };
  const j = await judgeStage({ task: 't', goldPatch: '', agentPatch: '', tests: passing, gold, threshold: 0.8 });
  expect(j).toMatchObject({ score: 1, passed: true, basis: 'tests' });
  expect(judgementSummary(j)).toBe('tests 3 of 3 pass');
});
