import { activityInfo, cancellationSignal, heartbeat } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type Docker from 'dockerode';
import type OpenAI from 'openai';
import { GoldReplayPolicy } from '../agent/gold-policy';
import { AgentStopped } from '../agent/loop';
import { ModelPolicy } from '../agent/model-policy';
import { Redactor } from '../agent/redact';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import type { BatchEntry } from '../workflows/batch-workflow';
import { mineForSchedule } from '../schedule/scheduled-mine';
import type { ScheduledRunInput } from '../schedule/types';
import type { StageCheck } from '../workflows/messages';
import { appendSample, buildSample, datasetPath } from '../dataset/export';
import { ChainsmithError, ConfigError, StageError } from '../errors';
import { goldTestsFor, invalidGold, stageCheck } from '../judge/gold-validation';
import { judgementSummary, judgeStage as judgeRound } from '../judge/judge-stage';
import { chainQueries } from '../queries/chain-queries';
import { summarizeLeaks } from '../queries/leak-rate';
import { runLabel, runRound, type RoundInput, type RoundProgress } from '../rollout/round';
import { HOST_LABEL, removeSandboxes, RUN_LABEL } from '../sandbox/docker-sandbox';
import { environmentsFrom, sandboxSpecFrom } from '../environments/from-config';
import {
  ChainQueriesSchema,
  ChainSchema,
  GoldTestsSchema,
  TestSignalSchema,
  TrajectorySchema,
  type ArtifactRef,
  type PolicyKind,
} from '../schemas';

export interface ActivityDeps {
  config: Config;
  docker: Docker;
  /** Present only when a model endpoint is configured. */
  openai?: OpenAI;
  image: string;
}

export interface JudgeInput {
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  stage: number;
  policy: PolicyKind;
  stagePatchRef: ArtifactRef;
  testsAfterRef: ArtifactRef;
  goldTestsRef?: ArtifactRef;
}

export interface ExportInput {
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  trajectoryRef: ArtifactRef;
  stages: { prNumber: number; score: number; rounds: number }[];
}

/** Thin Temporal wrappers: resolve references, call the pipeline code, turn permanent errors non-retryable. */
export function createActivities(deps: ActivityDeps) {
  const store = ArtifactStore.fromConfig(deps.config);
  const { config } = deps;
  const { host } = config.worker;
  const sandboxSpec = sandboxSpecFrom(config);
  const environments = environmentsFrom(config, deps.docker, deps.image);
  // The worker's key and secret-looking variables: never in a container, a prompt or a saved trajectory.
  const redactor = Redactor.forWorker(process.env, [config.model.apiKey]);
  const price = config.budget.prices[config.model.name];
  const judgeModel = (policy: PolicyKind) =>
    deps.openai && policy === 'model' ? { client: deps.openai, model: config.model.judgeName ?? config.model.name } : undefined;

  return {
    async rolloutRound(input: RoundInput & { policy: PolicyKind }) {
      // The last attempt's heartbeat names the hosts that ran this round before; a worker that died there
      // left its sandbox behind, and the chain's cleanup must go there too.
      const previous = activityInfo().heartbeatDetails as Partial<RoundProgress> | undefined;
      const earlierHosts = [...new Set([...(previous?.earlierHosts ?? []), ...(previous?.host ? [previous.host] : [])])].filter((h) => h !== host);
      let last: RoundProgress = {
        stage: input.stage,
        round: input.round,
        step: previous?.step ?? 0,
        promptTokens: previous?.promptTokens ?? 0,
        completionTokens: previous?.completionTokens ?? 0,
        host,
        earlierHosts,
      };
      // Heartbeat on a timer (guard) as well as per step: a model call or a test run can outlast the
      // heartbeat timeout, and a heartbeat is also how a pause or cancel reaches this activity. The timer
      // repeats the last step's details, which the next attempt resumes from.
      return guard(
        () =>
          runRound(input, {
            docker: deps.docker,
            store,
            sandbox: sandboxSpec,
            environments,
            limits: { ...config.agent, ...config.budget, price },
            redactor,
            host,
            heartbeat: (details) => heartbeat((last = details)),
            earlierHosts,
            signal: cancellationSignal(),
            policyFor: (chain, stage, testCommand) => {
              if (input.policy === 'gold-replay') return new GoldReplayPolicy(chain.prs[stage], testCommand);
              if (!deps.openai) throw new ConfigError('this chain runs a model policy but the worker has no model endpoint (set OPENAI_BASE_URL)');
              if (config.budget.maxCostUsd !== undefined && !price) {
                throw new ConfigError(`budget.maxCostUsd is set but budget.prices has no price for the model ${config.model.name}`);
              }
              return new ModelPolicy(deps.openai, config.model.name, { attempts: config.model.retries, baseDelayMs: config.model.retryBaseMs }, redactor);
            },
          }),
        () => heartbeat(last),
      );
    },

    /** One page of a batch's entries, so the batch list itself never enters workflow history. */
    async batchPage(input: { batchRef: ArtifactRef; offset: number; limit: number }): Promise<BatchEntry[]> {
      const entries = JSON.parse(await store.getText(input.batchRef)) as BatchEntry[];
      return entries.slice(input.offset, input.offset + input.limit);
    },

    /** Removes what a run left on this host: sandboxes of crashed attempts that no retry came back for. */
    async cleanupRun(input: { runKey: string }): Promise<number> {
      return guard(() => removeSandboxes(deps.docker, { [RUN_LABEL]: runLabel(input.runKey), [HOST_LABEL]: host }));
    },

    /** The chain's queries: model-written with a leak check when a model is configured, else templates. */
    async synthesizeQueries(input: { chainRef: ArtifactRef; policy: PolicyKind }) {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        const queries = await chainQueries(chain, judgeModel(input.policy));
        return { queriesRef: await store.putJson(queries), leakRate: summarizeLeaks([queries]).rate };
      });
    },

    /**
     * Which of the PR's tests fail before and pass after its gold patch (cached per PR), and whether
     * anything can judge the stage. Needs Docker. A stage that cannot be set up (a missing commit, a gold
     * patch that does not apply, an environment that does not build) is recorded as invalid with the
     * reason; the workflow cuts the chain before it.
     */
    async validateGold(input: { chainRef: ArtifactRef; stage: number; policy: PolicyKind }): Promise<StageCheck> {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        const gold = await goldTestsFor({ docker: deps.docker, store, sandbox: sandboxSpec, environments }, chain, input.stage).catch((err) => {
          if (err instanceof StageError) return invalidGold(chain, input.stage, '', err.message);
          throw err;
        });
        return { goldTestsRef: await store.putJson(gold), ...stageCheck(gold, !!judgeModel(input.policy)) };
      });
    },

    /** The chain's first `stages` stages, stored as a chain of its own. */
    async cutChain(input: { chainRef: ArtifactRef; stages: number }): Promise<{ chainRef: ArtifactRef }> {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        return { chainRef: await store.putJson({ ...chain, prs: chain.prs.slice(0, input.stages) }) };
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
          // Gold replays validate the environment: the tests decide, no model is paid for.
          judge: judgeModel(input.policy),
        });
        return { score: judgement.score, passed: judgement.passed, judgementRef: await store.putJson(judgement), summary: judgementSummary(judgement) };
      });
    },

    async exportSample(input: ExportInput) {
      return guard(async () => {
        const chain = await store.getJson(input.chainRef, ChainSchema);
        const trajectory = await store.getJson(input.trajectoryRef, TrajectorySchema);
        const queries = await store.getJson(input.queriesRef, ChainQueriesSchema);
        const sample = buildSample(chain, trajectory, input.stages.map((st, i) => ({ ...st, leakScore: queries.stages[i]?.leak?.score })));
        const path = datasetPath(config.dataDir, trajectory.policy, trajectory.scaffold);
        await appendSample(path, sample);
        return { sampleId: sample.id, path };
      });
    },

    /** One repository of a scheduled run (see schedule-workflow.ts). */
    async mineForSchedule(input: { run: ScheduledRunInput; index: number }) {
      return guard(() => mineForSchedule(config, input.run, input.index, activityInfo().workflowExecution?.workflowId ?? 'unknown-run'));
    },

  };
}

/**
 * Runs `fn` under guard, heartbeating on a timer when the activity has a heartbeat timeout (the chain
 * gives every activity one, timeouts.ts `beating`): a killed worker is noticed within that timeout.
 */
async function guard<T>(fn: () => Promise<T>, beat: () => void = () => heartbeat()): Promise<T> {
  const timeoutMs = activityInfo().heartbeatTimeoutMs;
  const timer = timeoutMs ? setInterval(beat, timeoutMs / 3) : undefined;
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AgentStopped || cancellationSignal().aborted) throw new CancelledFailure('stopped: the workflow asked this round to stop');
    if (err instanceof ChainsmithError && err.permanent) {
      throw ApplicationFailure.nonRetryable(err.message, err.name);
    }
    throw err;
  } finally {
    clearInterval(timer);
  }
}

export type Activities = ReturnType<typeof createActivities>;
