import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ArtifactRef, RoundResult, StageResult } from '../schemas';
import {
  ChainLength,
  ChainRepo,
  ChainScaffold,
  ChainStage,
  ChainStatusKey,
  pauseSignal,
  progressQuery,
  resumeSignal,
  type ChainProgress,
  type ChainResult,
  type ChainStatus,
  type ChainWorkflowInput,
  type StageCheck,
} from './messages';
import { hostQueue, sandboxQueue } from './task-queues';
import { beating, CLEANUP, EXPORT, GOLD, JUDGE, QUERIES, rolloutOptions } from './timeouts';

/**
 * One PR chain, stage by stage: roll out, judge, refine with the judge's feedback (at most
 * maxRefinements more rounds), accept or reject. The agent's own cumulative patch carries into the
 * next stage. History holds artifact references only; transcripts and patches stay in the store.
 * Pause stops the agent after its current (saved) step and holds the chain; resume continues the
 * round from that step. Cancel stops it and removes its sandboxes.
 */
export async function chainWorkflow(input: ChainWorkflowInput): Promise<ChainResult> {
  const run = new ChainRun(input);
  setHandler(progressQuery, () => run.progress);
  setHandler(pauseSignal, () => run.pause());
  setHandler(resumeSignal, () => run.resume());
  try {
    return await run.execute();
  } catch (err) {
    if (isCancellation(err)) run.finish('cancelled', 'cancelled by request');
    throw err;
  } finally {
    await CancellationScope.nonCancellable(() => run.cleanup());
  }
}

class ChainRun {
  readonly progress: ChainProgress;
  private paused = false;
  private roundScope?: CancellationScope;
  private queriesRef?: ArtifactRef;
  private lastVerdict = '';
  private conversationRef?: ArtifactRef;
  private carryPatchRef?: ArtifactRef;
  private readonly hosts = new Set<string>();
  /** The chain the stages run from: the input's, or the input's cut before a stage nothing can judge. */
  private chainRef: ArtifactRef;
  private goldTestsRefs?: ArtifactRef[];
  private readonly runKey = `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  private readonly queue = workflowInfo().taskQueue;

  constructor(private readonly input: ChainWorkflowInput) {
    const resume = input.resume;
    this.progress = { status: 'running', stage: resume?.stage ?? 0, stages: input.prNumbers.length, round: 0, results: resume?.results ?? [] };
    this.queriesRef = resume?.queriesRef;
    this.progress.queriesRef = resume?.queriesRef;
    this.conversationRef = resume?.conversationRef;
    this.carryPatchRef = resume?.carryPatchRef;
    this.goldTestsRefs = resume?.goldTestsRefs;
    this.chainRef = resume?.chainRef ?? input.chainRef;
    resume?.hosts.forEach((h) => this.hosts.add(h));
    upsertSearchAttributes([
      { key: ChainRepo, value: input.repo },
      { key: ChainLength, value: input.prNumbers.length },
      { key: ChainScaffold, value: input.scaffold ?? 'tools' },
    ]);
  }

  pause(): void {
    this.paused = true;
    this.roundScope?.cancel();
  }

  resume(): void {
    this.paused = false;
  }

  async execute(): Promise<ChainResult> {
    if (!this.goldTestsRefs) {
      const stopped = await this.validateStages();
      if (stopped) return stopped;
    }
    if (!this.queriesRef) {
      let written;
      try {
        written = await proxyActivities<Activities>({ ...this.beating(QUERIES), summary: 'write intent-only queries' }).synthesizeQueries({
          chainRef: this.chainRef,
          policy: this.input.policy,
        });
      } catch (err) {
        if (isCancellation(err)) throw err;
        return this.finish('failed', `the queries could not be written: ${failureMessage(err)}`);
      }
      this.queriesRef = written.queriesRef;
      this.progress.queriesRef = written.queriesRef;
    }
    for (let stage = this.progress.stage; stage < this.stageCount; stage++) {
      if (workflowInfo().continueAsNewSuggested && stage > (this.input.resume?.stage ?? 0)) await this.continueAsNew(stage);
      this.progress.stage = stage;
      const result = await this.runStage(stage);
      if (result.status !== 'accepted') {
        const n = result.rounds.length;
        const why =
          result.status === 'failed'
            ? this.progress.reason!
            : `stage ${stage + 1} (PR #${result.prNumber}) was rejected after ${n} round${n > 1 ? 's' : ''} (last score ${result.rounds[n - 1].score.toFixed(2)}${this.lastVerdict ? `: ${this.lastVerdict}` : ''})`;
        return this.finish(result.status === 'failed' ? 'failed' : 'rejected', why);
      }
    }
    const exported = await proxyActivities<Activities>({ ...this.beating(EXPORT), summary: 'export the accepted chain' }).exportSample({
      chainRef: this.chainRef,
      queriesRef: this.queriesRef!,
      trajectoryRef: this.conversationRef!,
      stages: this.progress.results.map((s) => ({ prNumber: s.prNumber, score: s.rounds[s.rounds.length - 1].score, rounds: s.rounds.length })),
    });
    return { ...this.finish('accepted'), sampleId: exported.sampleId, datasetPath: exported.path };
  }

  private async runStage(stage: number): Promise<StageResult> {
    const result: StageResult = { prNumber: this.input.prNumbers[stage], status: 'running', rounds: [] };
    this.progress.results[stage] = result;
    let progressPatchRef: ArtifactRef | undefined;
    let feedbackRef: ArtifactRef | undefined;
    const goldTestsRef = this.goldTestsRefs![stage];
    result.goldTestsRef = goldTestsRef;
    for (let round = 0; round <= this.input.maxRefinements; round++) {
      this.progress.round = round;
      this.mark('running');
      let r: RoundResult;
      try {
        r = await this.rollout(stage, round, progressPatchRef, feedbackRef);
      } catch (err) {
        if (isCancellation(err)) throw err;
        result.status = 'failed';
        this.progress.reason = `stage ${stage + 1} (PR #${result.prNumber}) failed: ${failureMessage(err)}`;
        return result;
      }
      for (const host of [r.host, ...(r.earlierHosts ?? [])]) this.hosts.add(host);
      result.carry = r.carry;
      result.finalRound = r;
      const label = this.label(stage, round);
      let verdict;
      try {
        verdict = await proxyActivities<Activities>({ ...this.beating(JUDGE), summary: `judge ${label}` }).judgeStage({
          chainRef: this.chainRef,
          queriesRef: this.queriesRef!,
          stage,
          policy: this.input.policy,
          stagePatchRef: r.stagePatchRef,
          testsAfterRef: r.testsAfterRef,
          goldTestsRef,
        });
      } catch (err) {
        if (isCancellation(err)) throw err;
        result.status = 'failed';
        this.progress.reason = `stage ${stage + 1} (PR #${result.prNumber}) could not be judged: ${failureMessage(err)}`;
        return result;
      }
      result.rounds.push({ round, score: verdict.score, passed: verdict.passed, judgementRef: verdict.judgementRef });
      this.lastVerdict = verdict.summary;
      this.conversationRef = r.trajectoryRef;
      progressPatchRef = r.stagePatchRef;
      feedbackRef = verdict.judgementRef;
      if (verdict.passed) {
        result.status = 'accepted';
        this.carryPatchRef = r.cumulativePatchRef;
        return result;
      }
    }
    result.status = 'rejected';
    return result;
  }

  /**
   * Gold validation of every stage before anything is spent on the chain (queries, rollouts): a stage
   * that nothing can judge (no FAIL_TO_PASS test and no judge model, or a stage that cannot be set up)
   * cuts the chain before it; when that is the first stage the chain is skipped. Returns the chain's
   * result when it ends here.
   */
  private async validateStages(): Promise<ChainResult | undefined> {
    this.mark('validating');
    let checks: StageCheck[];
    try {
      checks = await Promise.all(
        this.input.prNumbers.map((_, stage) =>
          proxyActivities<Activities>({ ...this.beating(GOLD), taskQueue: sandboxQueue(this.queue), summary: `validate gold tests of ${this.label(stage)}` }).validateGold({
            chainRef: this.input.chainRef,
            stage,
            policy: this.input.policy,
          }),
        ),
      );
    } catch (err) {
      if (isCancellation(err)) throw err;
      return this.finish('failed', `the stages could not be validated: ${failureMessage(err)}`);
    }
    this.goldTestsRefs = checks.map((c) => c.goldTestsRef);
    this.mark('running');
    const first = checks.findIndex((c) => !c.judgeable);
    if (first < 0) return undefined;
    const why = `stage ${first + 1} (PR #${this.input.prNumbers[first]}) cannot be judged: ${checks[first].reason}`;
    if (first === 0) return this.finish('skipped', why);
    const { chainRef } = await proxyActivities<Activities>({ ...this.beating(EXPORT), summary: `cut the chain before stage ${first + 1}` }).cutChain({
      chainRef: this.input.chainRef,
      stages: first,
    });
    this.chainRef = chainRef;
    this.progress.cut = { before: first, reason: why, chainRef };
    this.progress.stages = first;
    return undefined;
  }

  private beating(options: ActivityOptions): ActivityOptions {
    return beating(options, this.input.heartbeatTimeoutSeconds);
  }

  private get stageCount(): number {
    return this.progress.cut?.before ?? this.input.prNumbers.length;
  }

  /** One rollout round; a pause cancels it (its last step is saved) and runs it again after resume. */
  private async rollout(stage: number, round: number, progressPatchRef?: ArtifactRef, feedbackRef?: ArtifactRef): Promise<RoundResult> {
    const { rolloutRound } = proxyActivities<Activities>({
      ...rolloutOptions(this.input.heartbeatTimeoutSeconds),
      taskQueue: sandboxQueue(this.queue),
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      summary: `roll out ${this.label(stage, round)}`,
    });
    for (;;) {
      if (this.paused) {
        this.mark('paused');
        await condition(() => !this.paused);
        this.mark('running');
      }
      this.roundScope = new CancellationScope();
      try {
        return await this.roundScope.run(() =>
          rolloutRound({
            runKey: this.runKey,
            chainRef: this.chainRef,
            queriesRef: this.queriesRef!,
            policy: this.input.policy,
            scaffold: this.input.scaffold,
            stage,
            round,
            conversationRef: this.conversationRef,
            carryPatchRef: this.carryPatchRef,
            progressPatchRef,
            feedbackRef,
          }),
        );
      } catch (err) {
        if (!(this.paused && isCancellation(err) && !CancellationScope.current().consideredCancelled)) throw err;
      } finally {
        this.roundScope = undefined;
      }
    }
  }

  finish(status: ChainStatus, reason?: string): ChainResult {
    this.progress.reason = reason;
    this.mark(status);
    return { ...this.progress };
  }

  /** Removes sandboxes that crashed attempts left on any host this chain ran on, all hosts at once. */
  async cleanup(): Promise<void> {
    await Promise.all(
      [...this.hosts].map((host) =>
        proxyActivities<Activities>({ ...this.beating(CLEANUP), taskQueue: hostQueue(this.queue, host), summary: `clean up sandboxes on ${host}` })
          .cleanupRun({ runKey: this.runKey })
          .catch(() => undefined),
      ),
    );
  }

  private async continueAsNew(stage: number): Promise<never> {
    await condition(() => !this.paused);
    const resume = {
      stage,
      queriesRef: this.queriesRef,
      conversationRef: this.conversationRef,
      carryPatchRef: this.carryPatchRef,
      results: this.progress.results,
      hosts: [...this.hosts],
      goldTestsRefs: this.goldTestsRefs,
      chainRef: this.chainRef,
    };
    return continueAsNew<typeof chainWorkflow>({ ...this.input, resume });
  }

  private mark(status: ChainStatus): void {
    this.progress.status = status;
    upsertSearchAttributes([
      { key: ChainStatusKey, value: status },
      { key: ChainStage, value: this.progress.stage + 1 },
    ]);
  }

  private label(stage: number, round?: number): string {
    const where = `stage ${stage + 1}/${this.input.prNumbers.length} · PR #${this.input.prNumbers[stage]}`;
    return round === undefined ? where : `${where} · round ${round + 1}`;
  }
}

function failureMessage(err: unknown): string {
  let e: any = err;
  while (e?.cause) e = e.cause;
  return e?.message ?? String(err);
}
