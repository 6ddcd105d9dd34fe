import { activityInfo, cancellationSignal } from '@temporalio/activity';
import { activityCheckpoint } from '../setup-agent/progress';
import { judgementSummary, judgeStage as judgeRound } from '../judge/judge-stage';
import { invalidGold, stageCheck } from '../judge/gold-validation';
import { StageError } from '../errors';
import { reasonOf } from '../stage-reason';
import {
  ChainQueriesSchema,
  ChainSchema,
  GoldTestsSchema,
  TestSignalSchema,
  type ArtifactRef,
  type PolicyKind,
} from '../schemas';
import type { StageCheck } from '../workflows/types';
import type { ActivityContext } from './context';
import { guard } from './guard';

export interface JudgeInput {
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  stage: number;
  policy: PolicyKind;
  stagePatchRef: ArtifactRef;
  testsAfterRef: ArtifactRef;
  goldTestsRef?: ArtifactRef;
}

/** Before a stage is rolled out, what can judge it; after each round, the verdict. */
export function judgeActivities(ctx: ActivityContext) {
  const { store, config } = ctx;
  return {
    /**
     * Which of the PR's tests fail before and pass after its gold patch (cached per PR), and whether
     * anything can judge the stage. Needs Docker. A stage that cannot be set up (a missing commit, a gold
     * patch that does not apply, an environment that does not build) is recorded as invalid with the
     * reason; the workflow cuts the chain before it.
     */
    async validateGold(input: { chainRef: ArtifactRef; stage: number; policy: PolicyKind }): Promise<StageCheck> {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        // Where detection's recipe fails, the setup agent tries (with a model) or a recipe it saved serves.
        // Its progress is kept for this activity's retries (no model call made again), and it stops with the activity.
        const gold = await ctx.setupAgent
          .goldTestsResumable(chain, input.stage, activityCheckpoint(store, activityInfo()), cancellationSignal())
          .catch((err) => {
            if (err instanceof StageError)
              return invalidGold(chain, input.stage, '', err.message, reasonOf(err, 'invalid-inputs'));
            throw err;
          });
        return { goldTestsRef: await store.putJson(gold), ...stageCheck(gold, !!ctx.judgeModel(input.policy)) };
      });
    },

    async judgeStage(input: JudgeInput) {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        const queries = await store.getJson(input.queriesRef, ChainQueriesSchema);
        const judgement = await judgeRound({
          task: queries.stages[input.stage].text,
          goldPatch: chain.prs[input.stage].patch,
          agentPatch: await store.getText(input.stagePatchRef),
          tests: await store.getJson(input.testsAfterRef, TestSignalSchema),
          gold: input.goldTestsRef ? await store.getJson(input.goldTestsRef, GoldTestsSchema) : undefined,
          threshold: config.judge.threshold,
          stage: input.stage,
          // Gold replays validate the environment: the tests decide, no model is paid for.
          judge: ctx.judgeModel(input.policy),
        });
        return {
          score: judgement.score,
          passed: judgement.passed,
          judgementRef: await store.putJson(judgement),
          summary: judgementSummary(judgement),
        };
      });
    },
  };
}
