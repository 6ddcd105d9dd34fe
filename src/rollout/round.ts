import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { runAgent, type AgentLimits } from '../agent/loop';
import type { Policy } from '../agent/policy';
import { feedbackMessage, stageMessage, SYSTEM_PROMPT } from '../agent/prompts';
import { NO_REDACTION, type Redactor } from '../agent/redact';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import { prTestCommand, prTestFiles, runPrTests } from '../judge/test-signal';
import { CARRY_TAG, PROGRESS_PATCH } from '../sandbox/carryover';
import { DockerSandbox, HOST_LABEL, RUN_KEY_LABEL, RUN_LABEL, type SandboxSpec } from '../sandbox/docker-sandbox';
import type { Environments } from '../environments/builder';
import { resetStage, setUpStage } from '../sandbox/stage-setup';
import { stageInputProblem } from '../sandbox/stage-inputs';
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
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels' | 'image'>;
  environments: Environments;
  limits: AgentLimits;
  /** `testCommand` runs the PR's test files with the stage environment's runner. */
  policyFor: (chain: Chain, stage: number, testCommand: string) => Policy;
  /** Keeps the worker's secrets out of the conversation (see agent/redact.ts). */
  redactor?: Redactor;
  /** Progress for the Temporal UI and `chainsmith status`; also proves the worker is alive. */
  heartbeat: (details: RoundProgress) => void;
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

const sh = (sandbox: DockerSandbox, cmd: string) =>
  sandbox.exec(cmd, { timeoutSeconds: 600, maxOutputChars: 256 * 1024 * 1024, cwd: '/work/repo' });

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
  const key = createHash('sha256').update(`${input.runKey}/${input.stage}/${input.round}`).digest('hex').slice(0, 32);
  // A stage whose own inputs are broken fails here with the reason, before any container starts.
  const problem = await stageInputProblem(chain.repo.path, pr);
  if (problem) throw new StageError(`stage ${input.stage + 1} (PR #${pr.number}) cannot be set up: ${problem}`);
  const env = await deps.environments.forStage(chain, input.stage);

  const { sandbox, reused } = await DockerSandbox.reuseOrCreate(
    deps.docker,
    {
      ...deps.sandbox,
      image: env.image,
      mirrorPath: chain.repo.path,
      labels: { [RUN_LABEL]: runLabel(input.runKey), [RUN_KEY_LABEL]: input.runKey, [HOST_LABEL]: hostname(), 'chainsmith.stage': String(input.stage) },
    },
    key,
  );
  try {
    if (progressRef) await sandbox.writeFile(PROGRESS_PATCH, await store.get(progressRef));
    const carried = Boolean(input.carryPatchRef) && input.stage > 0;
    const carry =
      (reused && (await resetStage(sandbox, chain, input.stage, carried, Boolean(progressRef)))) ||
      (await setUpStage(sandbox, chain, input.stage, {
        carryPatch: carried ? await store.get(input.carryPatchRef!) : undefined,
        progress: Boolean(progressRef),
      }));

    const policy = deps.policyFor(chain, input.stage, prTestCommand(env, prTestFiles(pr)));
    const start = checkpoint?.trajectory ?? (await startingTrajectory(input, deps, policy, queries, carry));
    const host = hostname();
    const run = await runAgent({
      policy,
      sandbox,
      trajectory: start,
      limits: deps.limits,
      stepsThisRound: checkpoint?.stepsThisRound ?? 0,
      signal: deps.signal,
      redactor: deps.redactor,
      onStep: async (t, step) => {
        const patch = (await sh(sandbox, `git add -A && git diff --cached --binary ${CARRY_TAG}`)).output;
        await checkpoints.save(start, t, patch, step);
        deps.heartbeat({ stage: input.stage, round: input.round, step, ...t.usage, host, earlierHosts: deps.earlierHosts ?? [] });
      },
    });

    await sh(sandbox, 'git add -A');
    const stagePatchRef = await store.put((await sh(sandbox, `git diff --cached --binary ${CARRY_TAG}`)).output);
    // What carries on: the agent's tree against the gold tree after this stage.
    const cumulativePatchRef = await store.put((await sh(sandbox, `git diff --cached --binary ${pr.mergeSha}`)).output);
    const testsAfter = await runPrTests(sandbox, pr, env, 600);
    return {
      round: input.round,
      trajectoryRef: await store.putJson(run.trajectory),
      stagePatchRef,
      cumulativePatchRef,
      testsAfterRef: await store.putJson(testsAfter),
      carry,
      steps: run.stepsThisRound,
      stepsResumed: checkpoint?.stepsThisRound ?? 0,
      reusedSandbox: reused,
      host,
      earlierHosts: deps.earlierHosts ?? [],
      exitReason: run.exitReason,
    };
  } finally {
    await sandbox.destroy();
  }
}

async function startingTrajectory(input: RoundInput, deps: RoundDeps, policy: Policy, queries: ChainQueries, carry: Carry): Promise<Trajectory> {
  const { store } = deps;
  const redact = deps.redactor ?? NO_REDACTION;
  const t: Trajectory = input.conversationRef
    ? await store.getJson(input.conversationRef, TrajectorySchema)
    : {
        policy: policy.kind,
        model: policy.model,
        messages: [{ role: 'system', content: SYSTEM_PROMPT }],
        usage: { promptTokens: 0, completionTokens: 0 },
        toolCalls: 0,
        steps: 0,
      };
  if (input.round > 0 && input.feedbackRef) {
    const judgement = await store.getJson(input.feedbackRef, JudgementSchema);
    t.messages.push({ role: 'user', content: redact.text(feedbackMessage(judgement.feedback)) });
  } else {
    t.messages.push({ role: 'user', content: redact.text(stageMessage(queries, input.stage, carry)) });
  }
  t.exitReason = undefined;
  return t;
}

export function runLabel(runKey: string): string {
  return runKey.replace(/[^\w.-]/g, '_');
}
