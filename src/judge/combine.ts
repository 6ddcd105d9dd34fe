import type { GoldTests, Judgement, ModelVerdict, TestSignal } from '../schemas';
import { failureLine } from '../environments/languages';
import { testOutcome } from './test-outcome';

/** Failing tests keep a score below this, whatever the model says: half of the passing share. */
const FAILING_TESTS_CEILING = 0.5;
/** The failing tests the feedback names one by one (each with its runner's one-line reason); the rest are counted. */
const FAILING_NAMED = 50;

/**
 * The hybrid rule (README, "How a stage is judged"). The tests' score is 1 when every test that checks
 * the stage passes (FAIL_TO_PASS now passing, PASS_TO_PASS still passing; without a gold validation,
 * the PR's tests exiting 0), else 0.5 × the share of those tests that pass. With a model verdict the
 * score is min(model score, tests' score): tests can veto the model but never lift it. Without a model
 * the tests' score decides; with neither a test nor a model nothing verifies the stage and it scores 0.
 * The stage passes at score ≥ threshold.
 */
export function combine(
  tests: TestSignal | undefined,
  model: ModelVerdict | undefined,
  threshold: number,
  gold?: GoldTests,
): Judgement {
  const outcome = testOutcome(tests, gold);
  const testScore = outcome ? (outcome.passed ? 1 : FAILING_TESTS_CEILING * outcome.share) : undefined;
  const basis = model ? (outcome ? 'model+tests' : 'model') : outcome ? 'tests' : 'none';
  const score = round(
    model && testScore !== undefined ? Math.min(model.score, testScore) : (model?.score ?? testScore ?? 0),
  );

  const notes: string[] = [];
  if (model?.feedback) notes.push(model.feedback);
  if (outcome && !outcome.passed) {
    notes.push(
      outcome.checked === 'per-test'
        ? `These tests of the task do not pass yet:\n${failingList(outcome.failing, tests!.output)}`
        : `The tests that check this task fail:\n${tests!.output.slice(-3000)}`,
    );
  }
  if (basis === 'none')
    notes.push('Nothing verifies this stage: the PR changes no test and no judge model is configured.');
  return { score, passed: score >= threshold, feedback: notes.join('\n\n'), tests, model, basis, outcome, threshold };
}

/**
 * The feedback's list of failing tests: the first FAILING_NAMED with their reasons, then how many more.
 * A suite broken whole fails by the tens of thousands, and each reason is looked up in an output of up
 * to 8M characters: named all, the list took minutes to make and megabytes to send.
 */
function failingList(failing: string[], output: string): string {
  const named = failing.slice(0, FAILING_NAMED).map((id) => `- ${failureLine(output, id) ?? id}`);
  if (failing.length > FAILING_NAMED) named.push(`- and ${failing.length - FAILING_NAMED} more`);
  return named.join('\n');
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
