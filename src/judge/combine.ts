import type { Judgement, ModelVerdict, TestSignal } from '../schemas';

/**
 * The rule (README, "How a stage is judged"): failing PR tests cap the score at 0.5; passing tests
 * leave the model's score as it is; without a model, tests alone decide (1 or 0); with neither a
 * test nor a model nothing verifies the stage and it scores 0. Pass at score ≥ threshold.
 */
export function combine(tests: TestSignal | undefined, model: ModelVerdict | undefined, threshold: number): Judgement {
  const testRan = tests?.ran === true;
  let score: number;
  if (model) score = testRan && !tests!.passed ? Math.min(model.score, 0.5) : model.score;
  else score = testRan && tests!.passed ? 1 : 0;
  const feedback = [
    model?.feedback,
    testRan && !tests!.passed ? `The tests that check this task fail:\n${tests!.output.slice(-3000)}` : undefined,
    !testRan && !model ? 'Nothing verifies this stage: the PR changes no test and no judge model is configured.' : undefined,
  ]
    .filter(Boolean)
    .join('\n\n');
  return { score, passed: score >= threshold, feedback, tests, model };
}
