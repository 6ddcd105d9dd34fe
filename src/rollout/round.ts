import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type Docker from 'dockerode';
import { runAgent, type AgentLimits } from '../agent/loop';
import type { Policy } from '../agent/policy';
import { feedbackMessage, stageMessage, SYSTEM_PROMPT } from '../agent/prompts';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import { runPrTests } from '../judge/test-signal';
import { CARRY_PATCH, CARRY_TAG, carryScript, parseCarry, PROGRESS_PATCH } from '../sandbox/carryover';
import { DockerSandbox, HOST_LABEL, RUN_LABEL, type SandboxSpec } from '../sandbox/docker-sandbox';
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
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels'>;
  testCommand: string;
  limits: AgentLimits;
  policyFor: (chain: Chain, stage: number) => Policy;
  /** Progress for the Temporal UI and `chainsmith status`; also proves the worker is alive. */
  heartbeat: (details: RoundProgress) => void;
  signal?: AbortSignal;
}

export interface RoundProgress {
  stage: number;
  round: number;
  step: number;
  promptTokens: number;
  completionTokens: number;
  host: string;
}

const READY = '/work/.chainsmith/ready';
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

  const { sandbox, reused } = await DockerSandbox.reuseOrCreate(
    deps.docker,
    {
      ...deps.sandbox,
      mirrorPath: chain.repo.path,
      labels: { [RUN_LABEL]: runLabel(input.runKey), [HOST_LABEL]: hostname(), 'chainsmith.stage': String(input.stage) },
    },
    key,
  );
  try {
    if (progressRef) await sandbox.writeFile(PROGRESS_PATCH, await store.get(progressRef));
    const carried = Boolean(input.carryPatchRef) && input.stage > 0;
    const carry =
      (reused && (await resetToCheckpoint(sandbox, chain, input.stage, carried, progressRef))) ||
      (await setUp(sandbox, chain, input, deps, carried, progressRef));

    let testsBeforeRef: ArtifactRef | undefined;
    if (input.round === 0 && !checkpoint) {
      testsBeforeRef = await store.putJson(await runPrTests(sandbox, pr, deps.testCommand, 600));
      await sh(sandbox, `git reset -q --hard && git clean -qfd${progressRef ? ` && git apply --allow-empty --binary ${PROGRESS_PATCH}` : ''}`);
    }

    const start = checkpoint?.trajectory ?? (await startingTrajectory(input, deps, chain, queries, carry));
    const host = hostname();
    const run = await runAgent({
      policy: deps.policyFor(chain, input.stage),
      sandbox,
      trajectory: start,
      limits: deps.limits,
      stepsThisRound: checkpoint?.stepsThisRound ?? 0,
      signal: deps.signal,
      onStep: async (t, step) => {
        const patch = (await sh(sandbox, `git add -A && git diff --cached --binary ${CARRY_TAG}`)).output;
        await checkpoints.save(start, t, patch, step);
        deps.heartbeat({ stage: input.stage, round: input.round, step, ...t.usage, host });
      },
    });

    await sh(sandbox, 'git add -A');
    const stagePatchRef = await store.put((await sh(sandbox, `git diff --cached --binary ${CARRY_TAG}`)).output);
    // What carries on: the agent's tree against the gold tree after this stage.
    const cumulativePatchRef = await store.put((await sh(sandbox, `git diff --cached --binary ${pr.mergeSha}`)).output);
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
      reusedSandbox: reused,
      host,
      exitReason: run.exitReason,
    };
  } finally {
    await sandbox.destroy();
  }
}

/** Clones the repository inside the sandbox and builds S_init(t); the ready marker keeps the carry record. */
async function setUp(sandbox: DockerSandbox, chain: Chain, input: RoundInput, deps: RoundDeps, carried: boolean, progressRef?: ArtifactRef): Promise<Carry> {
  if (carried) await sandbox.writeFile(CARRY_PATCH, await deps.store.get(input.carryPatchRef!));
  const script = carryScript(chain, input.stage, { carry: carried, progress: Boolean(progressRef) });
  const setup = await sandbox.exec(`rm -rf /work/repo; mkdir -p /work/.chainsmith; (\n${script}\n) > /work/.chainsmith/setup.out 2>&1 && touch ${READY}; s=$?; cat /work/.chainsmith/setup.out; exit $s`, {
    timeoutSeconds: 600,
    maxOutputChars: 20_000,
    cwd: '/work',
  });
  if (setup.exitCode !== 0) {
    const pr = chain.prs[input.stage];
    throw new StageError(`stage ${input.stage + 1} (PR #${pr.number}) could not be set up:\n${setup.output}`);
  }
  return parseCarry(setup.output, chain, input.stage, carried);
}

/** In a surviving sandbox: back to the carry state plus the checkpoint's patch. Undefined if it never got ready. */
async function resetToCheckpoint(sandbox: DockerSandbox, chain: Chain, stage: number, carried: boolean, progressRef?: ArtifactRef): Promise<Carry | undefined> {
  const apply = progressRef ? ` && git apply --allow-empty --binary ${PROGRESS_PATCH}` : '';
  const r = await sh(sandbox, `test -f ${READY} && git reset -q --hard ${CARRY_TAG} && git clean -qfd${apply} && cat /work/.chainsmith/setup.out`);
  if (r.exitCode !== 0) return undefined;
  return parseCarry(r.output, chain, stage, carried);
}

async function startingTrajectory(input: RoundInput, deps: RoundDeps, chain: Chain, queries: ChainQueries, carry: Carry): Promise<Trajectory> {
  const { store } = deps;
  const policy = deps.policyFor(chain, input.stage);
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
    t.messages.push({ role: 'user', content: feedbackMessage(judgement.feedback) });
  } else {
    t.messages.push({ role: 'user', content: stageMessage(queries, input.stage, carry) });
  }
  t.exitReason = undefined;
  return t;
}

export function runLabel(runKey: string): string {
  return runKey.replace(/[^\w.-]/g, '_');
}
