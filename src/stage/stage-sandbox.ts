import type Docker from 'dockerode';
import { journaled } from '../work-journal';
import type { Environment, Environments } from '../environments/builder';
import { stageReason } from '../stage-reason';
import { StageError } from '../errors';
import { runPrTests } from '../environments/pr-tests';
import type { Carry, Chain, PullRequest, TestSignal } from '../schemas';
import { CARRY_TAG, PROGRESS_PATCH } from './carryover';
import {
  CLUSTER_LABEL,
  DockerContainer,
  HOST_LABEL,
  KEY_LABEL,
  RUN_KEY_LABEL,
  type ContainerSpec,
} from '../container/docker-container';
import { ownerLabel, sweepOrphansOnce } from '../container/orphans';
import type { ContainerPool } from './pool';
import type { ExecOptions, ExecResult, Sandbox } from '../container/sandbox';
import { claimRoundContainer, roundKey, roundName, type ContainerSource } from './round-container';
import { prepareStage, resetStage, setUpStage } from './setup';
import { stageInputProblem } from './inputs';

export interface StageSandboxDeps {
  docker: Docker;
  environments: Environments;
  /** The sandbox's limits; its image is the stage's environment image. */
  sandbox: Omit<ContainerSpec, 'mirrorPath' | 'labels' | 'image'>;
  /** Warm containers a rollout takes instead of starting one (absent or empty: a new one is started). */
  pool?: ContainerPool;
}

/**
 * Who a sandbox is for, which decides its labels and who removes it: a one-off gold validation is
 * owned by its worker process (removed if that dies); a rollout round's sandbox is named for its run,
 * `host` (the worker's host identity) and round `key` (round-container.ts): a retried round finds it
 * there by that name, and the chain's cleanup removes what is left. `cluster` (CLUSTER_LABEL) is the
 * Temporal cluster of the run: without it, no worker's sweep of closed runs removes the sandbox.
 */
export type StageRole =
  | { kind: 'gold' }
  | { kind: 'rollout'; runKey: string; key: string; host: string; cluster?: string };

export interface OpenStage {
  role: StageRole;
  /** The agent's cumulative patch through the previous stage, Δτ(t−1); '' is the gold carry (a perfect agent's). */
  carryPatch?: string | Buffer;
  /** This stage's earlier progress (a refinement round, or a retried one), applied on top. */
  progressPatch?: string | Buffer;
}

/**
 * One stage's sandbox, as gold validation and rollouts both use it: its environment image, the
 * stage's starting state S_init(t) = B_t ⊕ Δτ(t−1) (plus earlier progress) set up, the tests of its
 * PR, the patches of the tree, and removal.
 */
export class StageSandbox implements Sandbox {
  private constructor(
    readonly sandbox: DockerContainer,
    readonly env: Environment,
    readonly carry: Carry,
    readonly source: ContainerSource,
    /** The chain's clone on the host, where the PR's tests are read. */
    readonly repoPath: string,
    /** The round whose container is being prepared in the pool (the next stage's first), by name. */
    readonly next?: string,
  ) {}

  /** A retry found the round's sandbox still running (and reset it to its checkpoint where it could). */
  get reused(): boolean {
    return this.source === 'reused';
  }

  /**
   * The stage's environment, as open() would use it; a stage whose own inputs are broken fails here
   * with the reason, before any container starts.
   */
  static async environment(
    deps: Pick<StageSandboxDeps, 'environments'>,
    chain: Chain,
    stage: number,
  ): Promise<Environment> {
    const pr = chain.prs[stage];
    const problem = await stageInputProblem(chain.repo.path, pr);
    if (problem)
      throw new StageError(`stage ${stage + 1} (PR #${pr.number}) cannot be set up: ${problem}`, {
        reason: stageReason('invalid-inputs', problem),
      });
    return deps.environments.forStage(chain, stage);
  }

  /** `env`: the stage's environment() where the caller has it already. */
  static async open(
    deps: StageSandboxDeps,
    chain: Chain,
    stage: number,
    opts: OpenStage,
    env?: Environment,
  ): Promise<StageSandbox> {
    // Opened again by a retry is time redone (the durability bench counts it beside the units).
    return journaled('open', `${opts.role.kind} ${chain.repo.name} ${stage}`, () =>
      StageSandbox.openNow(deps, chain, stage, opts, env),
    );
  }

  private static async openNow(
    deps: StageSandboxDeps,
    chain: Chain,
    stage: number,
    opts: OpenStage,
    env?: Environment,
  ): Promise<StageSandbox> {
    env ??= await StageSandbox.environment(deps, chain, stage);
    const spec = sandboxSpec(deps, env, chain);
    const role = opts.role;
    let sandbox: DockerContainer;
    let source: ContainerSource = 'new';
    /** A gold sandbox's shared build cache is seeded from its image first (Environments.sharedCache). */
    let seed: string | undefined;
    if (role.kind === 'gold') {
      await sweepOrphansOnce(deps.docker);
      // Gold runs only (no agent code) share the language's build cache across stages.
      const cache = await deps.environments.sharedCache(env);
      sandbox = await DockerContainer.create(deps.docker, {
        ...spec,
        ...(cache ? { cacheMounts: cache.cacheMounts, env: cache.env } : {}),
        labels: { 'chainsmith.gold': `${chain.prs[stage].number}`, ...ownerLabel() },
      });
      seed = cache?.seed;
    } else {
      const labels = {
        [RUN_KEY_LABEL]: role.runKey,
        [KEY_LABEL]: role.key,
        [HOST_LABEL]: role.host,
        ...(role.cluster ? { [CLUSTER_LABEL]: role.cluster } : {}),
        'chainsmith.stage': String(stage),
      };
      // A retried round's surviving sandbox first; else one from its worker's pool (pool.ts); else a new one.
      ({ sandbox, source } = await claimRoundContainer(
        deps.docker,
        { ...spec, labels },
        roundName(role.runKey, role.host, role.key),
        deps.pool,
      ));
    }
    try {
      if (seed) await sandbox.exec(seed, { timeoutSeconds: 300, maxOutputChars: 2_000 });
      const progress = opts.progressPatch !== undefined;
      if (progress) await sandbox.writeFile(PROGRESS_PATCH, opts.progressPatch!);
      const carried = opts.carryPatch !== undefined && stage > 0;
      const carry =
        (source === 'reused' && (await resetStage(sandbox, chain, stage, carried, progress))) ||
        (await setUpStage(sandbox, chain, stage, {
          carryPatch: opts.carryPatch,
          progress,
          prepared: source === 'prepared',
        }));
      if (role.kind !== 'rollout') return new StageSandbox(sandbox, env, carry, source, chain.repo.path);
      deps.pool?.refill(spec);
      return new StageSandbox(sandbox, env, carry, source, chain.repo.path, prepareNext(deps, chain, stage, role));
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
    const r = await this.sandbox.exec(`git add -A && git diff --cached --binary ${ref}`, {
      timeoutSeconds: 600,
      maxOutputChars: 256 * 1024 * 1024,
      cwd: '/work/repo',
    });
    if (r.exitCode !== 0)
      throw new StageError(
        `cannot read the sandbox's changes against ${ref} (exit ${r.exitCode}): ${r.output.trim().slice(0, 2_000)}`,
      );
    return r.output;
  }

  /** The PR's tests (their PR versions overlaid) on the current tree, through the environment's runner. */
  runPrTests(pr: PullRequest, timeoutSeconds = 600): Promise<TestSignal> {
    return runPrTests(this.sandbox, this.repoPath, pr, this.env, timeoutSeconds);
  }

  destroy(): Promise<void> {
    return this.sandbox.destroy();
  }
}

/** A sandbox of the stage's environment: its image, the repository's mirror, and the stores it mounts read-only (Environment.mounts). */
function sandboxSpec(deps: Pick<StageSandboxDeps, 'sandbox'>, env: Environment, chain: Chain) {
  const mounts = env.mounts ? { readOnlyMounts: { ...deps.sandbox.readOnlyMounts, ...env.mounts } } : {};
  return { ...deps.sandbox, image: env.image, mirrorPath: chain.repo.path, ...mounts };
}

/**
 * While stage t runs, the container of stage t+1's first round is prepared in the worker's pool: its
 * environment's container with the repository at t+1's base (the carry alone is left for its open).
 * Only where that environment is built on this host already (a build is no background work) and
 * t+1's inputs are good (checked here, the check is remembered: its git processes leave the open's path).
 */
function prepareNext(
  deps: StageSandboxDeps,
  chain: Chain,
  stage: number,
  role: Extract<StageRole, { kind: 'rollout' }>,
): string | undefined {
  const pool = deps.pool;
  if (!pool?.enabled || stage + 1 >= chain.prs.length) return undefined;
  const name = roundName(role.runKey, role.host, roundKey(role.runKey, stage + 1, 0));
  const kind = async () => {
    if (await stageInputProblem(chain.repo.path, chain.prs[stage + 1])) return undefined;
    const env = await deps.environments.builtForStage(chain, stage + 1).catch(() => undefined);
    return env && sandboxSpec(deps, env, chain);
  };
  pool.prepare(name, kind, (s) => prepareStage(s, chain, stage + 1));
  return name;
}
