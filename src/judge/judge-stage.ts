import type { ModelClient } from '../model/client';
import type { GoldTests, Judgement, TestSignal } from '../schemas';
import { combine } from './combine';
import { modelVerdict } from './model-verdict';
import { testOutcome } from './test-outcome';

export interface StageToJudge {
  task: string;
  goldPatch: string;
  agentPatch: string;
  /** The PR's tests run on the agent's result. */
  tests?: TestSignal;
  /** The stage's gold validation, when one was made (FAIL_TO_PASS / PASS_TO_PASS). */
  gold?: GoldTests;
  threshold: number;
  /** The judge model (and the activity's cancellation, which stops its call); without one the tests decide. */
  judge?: { client: ModelClient; model: string; signal?: AbortSignal };
  /** Which stage of the chain this is (0-based), for the judge model's call marker. */
  stage?: number;
}

/** The hybrid judgement of one round: the model's verdict (if any) combined with the tests (combine.ts). */
export async function judgeStage(stage: StageToJudge): Promise<Judgement> {
  const outcome = testOutcome(stage.tests, stage.gold);
  const model = stage.judge
    ? await modelVerdict(
        stage.judge.client,
        stage.judge.model,
        {
          task: stage.task,
          goldPatch: stage.goldPatch,
          agentPatch: stage.agentPatch,
          tests: stage.tests,
          outcome,
          stage: stage.stage,
        },
        stage.judge.signal,
      )
    : undefined;
  return combine(stage.tests, model, stage.threshold, stage.gold);
}

/** One line on what decided a judgement, for a chain's status text: "model 0.40; tests 2 of 3 pass". */
export function judgementSummary(j: Judgement): string {
  const parts: string[] = [];
  if (j.model) parts.push(`model ${j.model.score.toFixed(2)}`);
  if (j.outcome) {
    const o = j.outcome;
    parts.push(
      o.checked === 'per-test'
        ? `tests ${o.failToPass!.passing + o.passToPass!.passing} of ${o.failToPass!.total + o.passToPass!.total} pass${o.failing.length ? ` (failing: ${o.failing.slice(0, 3).join(', ')}${o.failing.length > 3 ? ', …' : ''})` : ''}`
        : `the PR's tests ${o.passed ? 'pass' : 'fail'}`,
    );
  }
  if (j.basis === 'none') parts.push('nothing verifies this stage');
  const feedback = j.model?.feedback.split('\n').find((l) => l.trim());
  if (feedback) parts.push(`judge: ${feedback.length > 160 ? `${feedback.slice(0, 159)}…` : feedback}`);
  return parts.join('; ');
}
