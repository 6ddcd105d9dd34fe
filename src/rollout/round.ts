import type Docker from 'dockerode';
import { z } from 'zod';
import { runAgent, type AgentLimits } from '../agent/loop';
import type { Policy } from '../agent/policy';
import { feedbackMessage, stageMessage, SYSTEM_PROMPT } from '../agent/prompts';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import { runPrTests } from '../judge/test-signal';
import { CARRY_PATCH, CARRY_TAG, carryScript, parseCarry, PROGRESS_PATCH } from '../sandbox/carryover';
import { DockerSandbox, type SandboxSpec } from '../sandbox/docker-sandbox';
import {
  ArtifactRef,
  ChainQueriesSchema,
  ChainSchema,
  JudgementSchema,
  TrajectorySchema,
  type Chain,
  type RoundResult,
  type Trajectory,
} from '../schemas';

export interface RoundInput {
  /** Workflow id and run id: checkpoints of one run never leak into another. */
  runKey: string;
  chainRef: ArtifactRef;
  queriesRef: ArtifactRef;
  stage: number;
  round: number;
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
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels'>;
  testCommand: string;
  limits: AgentLimits;
  policyFor: (chain: Chain, stage: number) => Policy;
  heartbeat: (details: unknown) => void;
}

const CheckpointSchema = z.object({
  trajectoryRef: ArtifactRef,
  progressPatchRef: ArtifactRef,
  stepsThisRound: z.number().int().nonnegative(),
});

/**
 * One rollout round of one stage: a fresh sandbox at the stage's base with the earlier agent work carried
 * over, the agent loop, then the PR's tests on the result. After every agent step the conversation and the
 * working-tree patch are checkpointed, so a retried round resumes where the last step ended.
 */
export async function runRound(input: RoundInput, deps: RoundDeps): Promise<RoundResult> {
  const { store } = deps;
  const chain = await store.getJson(input.chainRef, ChainSchema);
  const queries = await store.getJson(input.queriesRef, ChainQueriesSchema);
  const pr = chain.prs[input.stage];
  const pointer = `rollouts/${input.runKey}/stage-${input.stage}/round-${input.round}`;
  const checkpointRef = await store.getPointer(pointer);
  const checkpoint = checkpointRef ? await store.getJson(checkpointRef, CheckpointSchema) : undefined;
  const progressRef = checkpoint?.progressPatchRef ?? input.progressPatchRef;

  const sandbox = await DockerSandbox.create(deps.docker, {
    ...deps.sandbox,
    mirrorPath: chain.repo.path,
    labels: { 'chainsmith.run': input.runKey.replace(/[^\w.-]/g, '_'), 'chainsmith.stage': String(input.stage) },
  });
  const sh = (cmd: string, maxOutputChars = 64 * 1024 * 1024) =>
    sandbox.exec(cmd, { timeoutSeconds: 600, maxOutputChars, cwd: '/work/repo' });
  try {
    if (input.carryPatchRef) await sandbox.writeFile(CARRY_PATCH, await store.get(input.carryPatchRef));
    if (progressRef) await sandbox.writeFile(PROGRESS_PATCH, await store.get(progressRef));
    const carried = Boolean(input.carryPatchRef) && input.stage > 0;
    const setup = await sandbox.exec(carryScript(chain, input.stage, { carry: carried, progress: Boolean(progressRef) }), {
      timeoutSeconds: 600,
      maxOutputChars: 20_000,
      cwd: '/work',
    });
    if (setup.exitCode !== 0) {
      throw new StageError(`stage ${input.stage + 1} (PR #${pr.number}) could not be set up:\n${setup.output}`);
    }
    const carry = parseCarry(setup.output, chain, input.stage, carried);

    let testsBeforeRef: ArtifactRef | undefined;
    if (input.round === 0 && !checkpoint) {
      testsBeforeRef = await store.putJson(await runPrTests(sandbox, pr, deps.testCommand, 600));
      await sh('git reset -q --hard && git clean -qfd');
      if (progressRef) await sh(`git apply --allow-empty --binary ${PROGRESS_PATCH}`);
    }

    const trajectory = checkpoint
      ? await store.getJson(checkpoint.trajectoryRef, TrajectorySchema)
      : await startingTrajectory(input, deps, chain, queries, carry);
    const policy = deps.policyFor(chain, input.stage);
    const run = await runAgent({
      policy,
      sandbox,
      trajectory,
      limits: deps.limits,
      stepsThisRound: checkpoint?.stepsThisRound ?? 0,
      onStep: async (t) => {
        const trajectoryRef = await store.putJson(t);
        const progressPatchRef = await store.put((await sh(`git add -A && git diff --cached --binary ${CARRY_TAG}`)).output);
        const stepsThisRound = t.steps - trajectory.steps + (checkpoint?.stepsThisRound ?? 0);
        await store.setPointer(pointer, await store.putJson({ trajectoryRef, progressPatchRef, stepsThisRound }));
        deps.heartbeat({ stage: input.stage, round: input.round, step: stepsThisRound, tokens: t.usage });
      },
    });

    await sh('git add -A');
    const stagePatchRef = await store.put((await sh(`git diff --cached --binary ${CARRY_TAG}`)).output);
    const cumulativePatchRef = await store.put((await sh(`git diff --cached --binary ${pr.mergeSha}`)).output);
    const testsAfter = await runPrTests(sandbox, pr, deps.testCommand, 600);
    return {
      round: input.round,
      trajectoryRef: await store.putJson(run.trajectory),
      stagePatchRef,
      cumulativePatchRef,
      testsBeforeRef,
      testsAfterRef: await store.putJson(testsAfter),
      carry,
      steps: run.stepsThisRound,
      stepsResumed: checkpoint?.stepsThisRound ?? 0,
      exitReason: run.exitReason,
    };
  } finally {
    await sandbox.destroy();
  }
}

async function startingTrajectory(
  input: RoundInput,
  deps: RoundDeps,
  chain: Chain,
  queries: z.infer<typeof ChainQueriesSchema>,
  carry: RoundResult['carry'],
): Promise<Trajectory> {
  const { store } = deps;
  const policy = deps.policyFor(chain, input.stage);
  const t: Trajectory = input.conversationRef
    ? await store.getJson(input.conversationRef, TrajectorySchema)
    : { policy: policy.kind, model: policy.model, messages: [{ role: 'system', content: SYSTEM_PROMPT }], usage: { promptTokens: 0, completionTokens: 0 }, toolCalls: 0, steps: 0 };
  if (input.round > 0 && input.feedbackRef) {
    const judgement = await store.getJson(input.feedbackRef, JudgementSchema);
    t.messages.push({ role: 'user', content: feedbackMessage(judgement.feedback) });
  } else {
    t.messages.push({ role: 'user', content: stageMessage(queries, input.stage, carry) });
  }
  t.exitReason = undefined;
  return t;
}
