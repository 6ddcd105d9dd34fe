import type Docker from 'dockerode';
import type { Environment, Environments } from '../environments/builder';
import { StageError } from '../errors';
import { runPrTests } from './pr-tests';
import type { Carry, Chain, PullRequest, TestSignal } from '../schemas';
import { CARRY_TAG, PROGRESS_PATCH } from './carryover';
import { DockerSandbox, RUN_KEY_LABEL, RUN_LABEL, type SandboxSpec } from './docker-sandbox';
import { ownerLabel, sweepOrphansOnce } from './orphans';
import type { SandboxPool } from './pool';
import type { ExecOptions, ExecResult, Sandbox } from './sandbox';
import { resetStage, setUpStage } from './stage-setup';
import { stageInputProblem } from './stage-inputs';

export interface StageSandboxDeps {
  docker: Docker;
  environments: Environments;
  /** The sandbox's limits; its image is the stage's environment image. */
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels' | 'image'>;
  /** Warm containers a rollout takes instead of starting one (absent or empty: a new one is started). */
  pool?: SandboxPool;
}

/**
 * Who a sandbox is for, which decides its labels and who removes it: a one-off gold validation is
 * owned by its worker process (removed if that dies); a rollout round's sandbox belongs to its run and
 * is found again by `key` on its `host` (the worker's host identity) when the round is retried there,
 * and the chain's cleanup removes what is left.
 */
export type StageRole = { kind: 'gold' } | { kind: 'rollout'; runKey: string; key: string; host: string };

export interface OpenStage {
  role: StageRole;
  /** The agent's cumulative patch through the previous stage, Δτ(t−1); '' is the gold carry (a perfect agent's). */
  carryPatch?: string | Buffer;
  /** This stage's earlier progress (a refinement round, or a retried one), applied on top. */
  progressPatch?: string | Buffer;
}

/** A sandbox run's label for a run key (workflow id / run id), as Docker's label filters accept it. */
export function runLabel(runKey: string): string {
  return runKey.replace(/[^\w.-]/g, '_');
}

/**
 * One stage's sandbox, as gold validation and rollouts both use it: its environment image, the
 * stage's starting state S_init(t) = B_t ⊕ Δτ(t−1) (plus earlier progress) set up, the tests of its
 * PR, the patches of the tree, and removal.
 */
export class StageSandbox implements Sandbox {
  private constructor(
    readonly sandbox: DockerSandbox,
    readonly env: Environment,
    readonly carry: Carry,
    /** A retry found the round's sandbox still running (and reset it to its checkpoint where it could). */
    readonly reused: boolean,
  ) {}

  static async open(deps: StageSandboxDeps, chain: Chain, stage: number, opts: OpenStage): Promise<StageSandbox> {
    const pr = chain.prs[stage];
    // A stage whose own inputs are broken fails here with the reason, before any container starts.
    const problem = await stageInputProblem(chain.repo.path, pr);
    if (problem) throw new StageError(`stage ${stage + 1} (PR #${pr.number}) cannot be set up: ${problem}`);
    const env = await deps.environments.forStage(chain, stage);
    const spec = { ...deps.sandbox, image: env.image, mirrorPath: chain.repo.path };
    const role = opts.role;
    let sandbox: DockerSandbox;
    let reused = false;
    if (role.kind === 'gold') {
      await sweepOrphansOnce(deps.docker);
      sandbox = await DockerSandbox.create(deps.docker, { ...spec, labels: { 'chainsmith.gold': `${pr.number}`, ...ownerLabel() } });
    } else {
      const labels = { [RUN_LABEL]: runLabel(role.runKey), [RUN_KEY_LABEL]: role.runKey, 'chainsmith.stage': String(stage) };
      // A retried round's surviving sandbox first; else a warm one (its worker's, see pool.ts); else a new one, labelled for its run.
      ({ sandbox, reused } = await DockerSandbox.reuseOrCreate(deps.docker, { ...spec, labels }, role.key, role.host, deps.pool));
    }
    try {
      const progress = opts.progressPatch !== undefined;
      if (progress) await sandbox.writeFile(PROGRESS_PATCH, opts.progressPatch!);
      const carried = opts.carryPatch !== undefined && stage > 0;
      const carry =
        (reused && (await resetStage(sandbox, chain, stage, carried, progress))) ||
        (await setUpStage(sandbox, chain, stage, { carryPatch: opts.carryPatch, progress }));
      if (role.kind === 'rollout') deps.pool?.refill(spec);
      return new StageSandbox(sandbox, env, carry, reused);
    } catch (err) {
      await sandbox.destroy();
      throw err;
    }
  }

  exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    return this.sandbox.exec(command, opts);
  }

  tryWriteFile(path: string, content: string | Buffer, mode?: number): Promise<ExecResult> {
    return this.sandbox.tryWriteFile(path, content, mode);
  }

  writeFile(path: string, content: string | Buffer, mode?: number): Promise<void> {
    return this.sandbox.writeFile(path, content, mode);
  }

  /** The whole working tree (new files included) against `ref`; the stage's start when none is given. */
  async diff(ref: string = CARRY_TAG): Promise<string> {
    const r = await this.sandbox.exec(`git add -A && git diff --cached --binary ${ref}`, { timeoutSeconds: 600, maxOutputChars: 256 * 1024 * 1024, cwd: '/work/repo' });
    if (r.exitCode !== 0) throw new StageError(`cannot read the sandbox's changes against ${ref}: ${r.output.trim().slice(0, 2_000)}`);
    return r.output;
  }

  /** The PR's tests (their PR versions overlaid) on the current tree, through the environment's runner. */
  runPrTests(pr: PullRequest, timeoutSeconds = 600): Promise<TestSignal> {
    return runPrTests(this.sandbox, pr, this.env, timeoutSeconds);
  }

  destroy(): Promise<void> {
    return this.sandbox.destroy();
  }
}
