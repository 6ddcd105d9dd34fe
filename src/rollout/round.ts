import type Docker from 'dockerode';
import { runAgent, type AgentLimits } from '../agent/loop';
import type { Policy } from '../agent/policy';
import { feedbackMessage, stageMessage } from '../agent/prompts';
import { NO_REDACTION, type Redactor } from '../redact';
import { scaffoldFor } from '../agent/scaffolds';
import type { ArtifactStore } from '../artifacts/store';
import { describeEnvironment } from '../environments/describe';
import { prTestCommand, prTests, testPaths } from '../environments/pr-tests';
import type { ContainerSpec } from '../container/docker-container';
import type { ContainerPool } from '../stage/pool';
import { roundKey } from '../stage/round-container';
import { StageSandbox } from '../stage/stage-sandbox';
import { parseCarry } from '../stage/carryover';
import type { Environments } from '../environments/builder';
import {
  ChainQueriesSchema,
  ChainSchema,
  JudgementSchema,
  TrajectorySchema,
  type ArtifactRef,
  type Carry,
  type Chain,
  type ChainQueries,
  type RoundResult,
  type ScaffoldKind,
  type Trajectory,
} from '../schemas';
import { RoundCheckpoints } from './checkpoints';

export interface RoundInput {
  /** Workflow id and run id: checkpoints of one run never leak into another. */
  runKey: string;
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  stage: number;
  round: number;
  /** The protocol of a new conversation (default 'tools'); a continued one keeps its own. */
  scaffold?: ScaffoldKind;
  /** The conversation so far: the end of the previous round or stage. */
  conversationRef?: ArtifactRef;
  /** The agent's cumulative patch through the previous stage, Δτ(t−1). */
  carryPatchRef?: ArtifactRef;
  /** This stage's patch from the previous round, replayed before a refinement round. */
  progressPatchRef?: ArtifactRef;
  /** The judgement that rejected the previous round. */
  feedbackRef?: ArtifactRef;
}

export interface RoundDeps {
  docker: Docker;
  store: ArtifactStore;
  /** The sandbox's limits; its image is the stage's environment image. */
  sandbox: Omit<ContainerSpec, 'mirrorPath' | 'labels' | 'image'>;
  environments: Environments;
  /** Warm sandboxes to take before starting one. */
  pool?: ContainerPool;
  limits: AgentLimits;
  /** `testCommand` runs the PR's tests with the stage environment's runner; undefined where the PR has none. */
  policyFor: (chain: Chain, stage: number, testCommand: string | undefined) => Policy;
  /** Keeps the worker's secrets out of the conversation (see src/redact.ts). */
  redactor?: Redactor;
  /** Progress for the Temporal UI and `chainsmith status`; also proves the worker is alive. */
  heartbeat: (details: RoundProgress) => void;
  /** This worker's host identity (config worker.host): labels the sandbox and goes in every heartbeat. */
  host: string;
  /** The Temporal cluster of the run (CLUSTER_LABEL on its sandboxes), for the sweep of closed runs. */
  cluster?: string;
  /** Hosts that ran earlier attempts of this round (a worker there died): the chain cleans up there too. */
  earlierHosts?: string[];
  signal?: AbortSignal;
}

export interface RoundProgress {
  stage: number;
  round: number;
  step: number;
  promptTokens: number;
  completionTokens: number;
  host: string;
  earlierHosts: string[];
}

/**
 * One rollout round of one stage: a sandbox at the stage's base with the earlier agent work carried over,
 * the agent loop, then the PR's tests on the result. After every agent step the new messages and the
 * working-tree patch are checkpointed. A retried round resumes from the last checkpoint: in the same
 * sandbox when it survived (its tree is reset to the checkpoint), else in a new one rebuilt from it.
 */
export async function runRound(input: RoundInput, deps: RoundDeps): Promise<RoundResult> {
  const { store } = deps;
  const chain = await store.getJson(input.chainRef, ChainSchema);
  const queries = await store.getJson(input.queriesRef, ChainQueriesSchema);
  const pr = chain.prs[input.stage];
  const checkpoints = new RoundCheckpoints(store, `rollouts/${input.runKey}/stage-${input.stage}/round-${input.round}`);
  const checkpoint = await checkpoints.load();
  const progressRef = checkpoint?.progressPatchRef ?? input.progressPatchRef;
  const key = roundKey(input.runKey, input.stage, input.round);
  const env = await StageSandbox.environment(deps, chain, input.stage);
  const carryPatch = input.carryPatchRef && input.stage > 0 ? await store.get(input.carryPatchRef) : undefined;
  const opening = StageSandbox.open(
    deps,
    chain,
    input.stage,
    {
      role: { kind: 'rollout', runKey: input.runKey, key, host: deps.host, cluster: deps.cluster },
      carryPatch,
      progressPatch: progressRef ? await store.get(progressRef) : undefined,
    },
    env,
  );
  const container = opening.then((s) => s.sandbox);
  // A failed open is thrown where the round awaits the sandbox, not reported unhandled while a model call is in flight.
  for (const p of [opening, container]) p.catch(() => undefined);
  try {
    const tests = testPaths(await prTests(chain.repo.path, pr));
    const policy = deps.policyFor(chain, input.stage, tests.length ? prTestCommand(env, tests) : undefined);
    // The first prompt needs the sandbox only to tell the agent of a carry's conflicts: without a carry,
    // the first model call runs while the sandbox opens (at a batch's start, every rollout opens at once).
    const carry = async () =>
      carryPatch !== undefined ? (await opening).carry : parseCarry('', chain, input.stage, false);
    const start =
      checkpoint?.trajectory ??
      (await startingTrajectory(input, deps, policy, queries, carry, describeEnvironment(env)));
    const { host } = deps;
    // The tree as the last step left it: nothing changes it after that step's checkpoint.
    let lastPatch: string | undefined;
    const run = await runAgent({
      policy,
      sandbox: container,
      trajectory: start,
      limits: deps.limits,
      stepsThisRound: checkpoint?.stepsThisRound ?? 0,
      signal: deps.signal,
      redactor: deps.redactor,
      at: { stage: input.stage, round: input.round },
      onStep: async (t, step) => {
        const patch = (lastPatch = await (await opening).diff());
        await checkpoints.save(start, t, patch, step);
        deps.heartbeat({
          stage: input.stage,
          round: input.round,
          step,
          ...t.usage,
          host,
          earlierHosts: deps.earlierHosts ?? [],
        });
      },
    });

    const sandbox = await opening;
    // One git process pair less per round, at the moment every rollout of a batch ends at once.
    const stagePatchRef = await store.put(lastPatch ?? (await sandbox.diff()));
    // What carries on: the agent's tree against the gold tree after this stage.
    const cumulativePatchRef = await store.put(await sandbox.diff(pr.mergeSha));
    const testsAfter = await sandbox.runPrTests(pr);
    return {
      round: input.round,
      trajectoryRef: await store.putJson(run.trajectory),
      stagePatchRef,
      cumulativePatchRef,
      testsAfterRef: await store.putJson(testsAfter),
      carry: sandbox.carry,
      steps: run.stepsThisRound,
      stepsResumed: checkpoint?.stepsThisRound ?? 0,
      reusedSandbox: sandbox.reused,
      host,
      earlierHosts: deps.earlierHosts ?? [],
      exitReason: run.exitReason,
    };
  } finally {
    const sandbox = await opening.catch(() => undefined);
    await sandbox?.destroy();
    // A cancelled chain (or a paused one, which runs this round again) does not go on to the next stage now.
    if (deps.signal?.aborted && sandbox?.next) await deps.pool?.dropPrepared(sandbox.next);
  }
}

async function startingTrajectory(
  input: RoundInput,
  deps: RoundDeps,
  policy: Policy,
  queries: ChainQueries,
  /** What the carry did; asked for only where the first message tells of it. */
  carry: () => Promise<Carry>,
  environment: string,
): Promise<Trajectory> {
  const { store } = deps;
  const redact = deps.redactor ?? NO_REDACTION;
  const t: Trajectory = input.conversationRef
    ? await store.getJson(input.conversationRef, TrajectorySchema)
    : {
        policy: policy.kind,
        model: policy.model,
        scaffold: input.scaffold ?? 'tools',
        messages: [{ role: 'system', content: scaffoldFor(input.scaffold).systemPrompt(environment) }],
        usage: { promptTokens: 0, completionTokens: 0 },
        toolCalls: 0,
        steps: 0,
      };
  if (input.round > 0 && input.feedbackRef) {
    const judgement = await store.getJson(input.feedbackRef, JudgementSchema);
    t.messages.push({ role: 'user', content: redact.text(feedbackMessage(judgement.feedback)) });
  } else {
    t.messages.push({ role: 'user', content: redact.text(stageMessage(queries, input.stage, await carry())) });
  }
  t.exitReason = undefined;
  return t;
}
