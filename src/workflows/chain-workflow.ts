import {
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  patched,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ArtifactRef, RoundResult, StageResult } from '../schemas';
import { activity, type ActivityName } from './activity-table';
import {
  ChainLength,
  ChainRepo,
  ChainScaffold,
  ChainStage,
  ChainStatusKey,
  pauseSignal,
  progressQuery,
  resumeSignal,
} from './messages';
import type { ChainResult, ChainState, ChainStatus, ChainWorkflowInput } from './types';

/**
 * One PR chain, stage by stage: roll out, judge, refine with the judge's feedback (at most
 * maxRefinements more rounds), accept or reject. The agent's own cumulative patch carries into the
 * next stage. History holds artifact references only; transcripts and patches stay in the store.
 * Pause stops the agent and holds the chain with no sandbox of it left running; resume continues the
 * round from its last saved step. Cancel stops it and removes its sandboxes.
 */
export async function chainWorkflow(input: ChainWorkflowInput): Promise<ChainResult> {
  const run = new ChainRun(input);
  setHandler(progressQuery, () => run.state.progress);
  setHandler(pauseSignal, () => run.pause());
  setHandler(resumeSignal, () => run.resume());
  try {
    const end = await run.execute();
    return end instanceof ChainEnd ? run.finish(end.status, end.reason) : end;
  } catch (err) {
    if (isCancellation(err)) run.finish('cancelled', 'cancelled by request');
    throw err;
  } finally {
    await CancellationScope.nonCancellable(() => run.cleanup());
  }
}

/** How a chain ends short of its export, and why, in words the user reads. */
class ChainEnd {
  constructor(
    readonly status: 'rejected' | 'failed' | 'skipped',
    readonly reason: string,
  ) {}
}

/** Runs one step of the chain: its value, or, when it fails, the chain's end saying what failed. */
async function step<T>(what: string, run: () => Promise<T>): Promise<T | ChainEnd> {
  try {
    return await run();
  } catch (err) {
    if (isCancellation(err)) throw err;
    return new ChainEnd('failed', `${what}: ${failureMessage(err)}`);
  }
}

class ChainRun {
  readonly state: ChainState;
  private paused = false;
  private roundScope?: CancellationScope;
  /** The stage this run started at: it continues as new only after running one. */
  private readonly firstStage: number;
  private readonly runKey = `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  private readonly queue = workflowInfo().taskQueue;

  constructor(private readonly input: ChainWorkflowInput) {
    this.state = input.state ?? {
      progress: { status: 'running', stage: 0, stages: input.prNumbers.length, round: 0, results: [] },
      chainRef: input.chainRef,
      hosts: [],
    };
    this.firstStage = this.state.progress.stage;
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

  /** The method: validate every stage, write the queries, run the stages in order, export the accepted chain. */
  async execute(): Promise<ChainResult | ChainEnd> {
    const { progress } = this.state;
    if (!this.state.goldTestsRefs) {
      const end = await this.validateStages();
      if (end) return end;
    }
    if (!progress.queriesRef) {
      const written = await step('the queries could not be written', () =>
        this.activity(
          'synthesizeQueries',
          'write intent-only queries',
        )({ chainRef: this.state.chainRef, policy: this.input.policy }),
      );
      if (written instanceof ChainEnd) return written;
      progress.queriesRef = written.queriesRef;
    }
    for (let stage = progress.stage; stage < (progress.cut?.before ?? this.input.prNumbers.length); stage++) {
      if (workflowInfo().continueAsNewSuggested && stage > this.firstStage) await this.continueAsNew(stage);
      const end = await this.runStage(stage);
      if (end) return end;
    }
    const exported = await step('the accepted chain could not be exported', () =>
      this.activity(
        'exportSample',
        'export the accepted chain',
      )({
        chainRef: this.state.chainRef,
        queriesRef: progress.queriesRef!,
        trajectoryRef: this.state.conversationRef!,
        stages: progress.results.map((s) => ({
          prNumber: s.prNumber,
          score: s.rounds[s.rounds.length - 1].score,
          rounds: s.rounds.length,
        })),
      }),
    );
    if (exported instanceof ChainEnd) return exported;
    return { ...this.finish('accepted'), sampleId: exported.sampleId, datasetPath: exported.path };
  }

  /** One stage: roll out, judge, and refine with the judge's feedback until it passes or the rounds run out. */
  private async runStage(stage: number): Promise<ChainEnd | undefined> {
    const { progress } = this.state;
    const result: StageResult = {
      prNumber: this.input.prNumbers[stage],
      status: 'running',
      rounds: [],
      goldTestsRef: this.state.goldTestsRefs![stage],
    };
    progress.stage = stage;
    progress.results[stage] = result;
    const where = `stage ${stage + 1} (PR #${result.prNumber})`;
    const end = (e: ChainEnd): ChainEnd => {
      result.status = e.status === 'rejected' ? 'rejected' : 'failed';
      return e;
    };
    let feedback: { progressPatchRef: ArtifactRef; feedbackRef: ArtifactRef; summary: string } | undefined;
    for (let round = 0; round <= this.input.maxRefinements; round++) {
      progress.round = round;
      this.mark('running');
      const r = await step(`${where} failed`, () => this.rollout(stage, round, feedback));
      if (r instanceof ChainEnd) return end(r);
      for (const host of [r.host, ...(r.earlierHosts ?? [])])
        if (!this.state.hosts.includes(host)) this.state.hosts.push(host);
      result.carry = r.carry;
      result.finalRound = r;
      const verdict = await step(`${where} could not be judged`, () =>
        this.activity(
          'judgeStage',
          `judge ${this.label(stage, round)}`,
        )({
          chainRef: this.state.chainRef,
          queriesRef: progress.queriesRef!,
          stage,
          policy: this.input.policy,
          stagePatchRef: r.stagePatchRef,
          testsAfterRef: r.testsAfterRef,
          goldTestsRef: result.goldTestsRef,
        }),
      );
      if (verdict instanceof ChainEnd) return end(verdict);
      result.rounds.push({ round, score: verdict.score, passed: verdict.passed, judgementRef: verdict.judgementRef });
      this.state.conversationRef = r.trajectoryRef;
      if (verdict.passed) {
        result.status = 'accepted';
        this.state.carryPatchRef = r.cumulativePatchRef;
        return undefined;
      }
      feedback = { progressPatchRef: r.stagePatchRef, feedbackRef: verdict.judgementRef, summary: verdict.summary };
    }
    const n = result.rounds.length;
    const last = `last score ${result.rounds[n - 1].score.toFixed(2)}${feedback?.summary ? `: ${feedback.summary}` : ''}`;
    return end(new ChainEnd('rejected', `${where} was rejected after ${n} round${n > 1 ? 's' : ''} (${last})`));
  }

  /**
   * Gold validation of every stage before anything is spent on the chain (queries, rollouts): a stage
   * that nothing can judge (no FAIL_TO_PASS test and no judge model, or a stage that cannot be set up)
   * cuts the chain before it; when that is the first stage the chain is skipped.
   */
  private async validateStages(): Promise<ChainEnd | undefined> {
    this.mark('validating');
    const validate = (stage: number) =>
      this.activity(
        'validateGold',
        `validate gold tests of ${this.label(stage)}`,
      )({ chainRef: this.input.chainRef, stage, policy: this.input.policy });
    const checks = await step('the stages could not be validated', async () => {
      // Histories started before this ran every stage's validation side by side.
      if (!patched('gold-validation-stage-by-stage'))
        return Promise.all(this.input.prNumbers.map((_, stage) => validate(stage)));
      // One stage at a time, up to the first that nothing can judge (the chain is cut there, so later
      // stages need no validation): a killed worker redoes only the one unit under way in this chain,
      // and the CPU a worker has is as busy with other chains' stages as it was with this chain's.
      const done: Awaited<ReturnType<typeof validate>>[] = [];
      for (let stage = 0; stage < this.input.prNumbers.length; stage++) {
        done.push(await validate(stage));
        if (!done[stage].judgeable) break;
      }
      return done;
    });
    if (checks instanceof ChainEnd) return checks;
    this.state.goldTestsRefs = checks.map((c) => c.goldTestsRef);
    this.mark('running');
    const first = checks.findIndex((c) => !c.judgeable);
    if (first < 0) return undefined;
    const why = `stage ${first + 1} (PR #${this.input.prNumbers[first]}) cannot be judged: ${checks[first].reason}`;
    const detail = checks[first].detail;
    if (detail)
      this.state.progress.unjudgeable = { stage: first, prNumber: this.input.prNumbers[first], reason: detail };
    if (first === 0) return new ChainEnd('skipped', why);
    const cut = await step('the chain could not be cut to its judgeable stages', () =>
      this.activity(
        'cutChain',
        `cut the chain before stage ${first + 1}`,
      )({ chainRef: this.input.chainRef, stages: first }),
    );
    if (cut instanceof ChainEnd) return cut;
    this.state.chainRef = cut.chainRef;
    this.state.progress.cut = { before: first, reason: why, chainRef: cut.chainRef };
    this.state.progress.stages = first;
    return undefined;
  }

  /** One rollout round; a pause cancels it (its last step is saved) and runs it again after resume. */
  private async rollout(
    stage: number,
    round: number,
    feedback?: { progressPatchRef: ArtifactRef; feedbackRef: ArtifactRef },
  ): Promise<RoundResult> {
    const rolloutRound = this.activity('rolloutRound', `roll out ${this.label(stage, round)}`);
    for (;;) {
      if (this.paused) await this.holdWhilePaused();
      this.roundScope = new CancellationScope();
      try {
        return await this.roundScope.run(() =>
          rolloutRound({
            runKey: this.runKey,
            chainRef: this.state.chainRef,
            queriesRef: this.state.progress.queriesRef!,
            policy: this.input.policy,
            scaffold: this.input.scaffold,
            stage,
            round,
            conversationRef: this.state.conversationRef,
            carryPatchRef: this.state.carryPatchRef,
            progressPatchRef: feedback?.progressPatchRef,
            feedbackRef: feedback?.feedbackRef,
          }),
        );
      } catch (err) {
        if (!(this.paused && isCancellation(err) && !CancellationScope.current().consideredCancelled)) throw err;
      } finally {
        this.roundScope = undefined;
      }
    }
  }

  /**
   * Holds the chain until it is resumed. A paused round removed its own sandbox and the next stage's
   * prepared one; a pause that came between rounds (while judging, or as a round ended) removes that
   * prepared one here: a chain can stay paused for days, and a paused chain holds no container.
   */
  private async holdWhilePaused(): Promise<void> {
    this.mark('paused');
    // Runs that paused here before this release replay without the cleanup they did not do.
    if (patched('paused-chain-holds-no-sandbox')) await this.cleanup();
    await condition(() => !this.paused);
    this.mark('running');
  }

  finish(status: ChainStatus, reason?: string): ChainResult {
    this.state.progress.reason = reason;
    this.mark(status);
    return { ...this.state.progress };
  }

  /** Removes what the chain left on every host it ran on (crashed attempts' sandboxes, the next stage's prepared one), all hosts at once. */
  async cleanup(): Promise<void> {
    await Promise.all(
      this.state.hosts.map((host) =>
        this.activity(
          'cleanupRun',
          `clean up sandboxes on ${host}`,
          host,
        )({ runKey: this.runKey }).catch(() => undefined),
      ),
    );
  }

  /** Hands the chain's state, as it is, to a fresh run (a bounded history), once no pause holds it. */
  private async continueAsNew(stage: number): Promise<never> {
    // Paused here, it holds no sandbox either (runs that waited here before this release replay as they ran).
    if (this.paused && patched('paused-before-continue-as-new-holds-no-sandbox')) await this.holdWhilePaused();
    await condition(() => !this.paused);
    this.state.progress.stage = stage;
    return continueAsNew<typeof chainWorkflow>({ ...this.input, state: this.state });
  }

  /** The activity `name`, with the queue and timeouts the activity table gives it. */
  private activity<K extends ActivityName>(name: K, summary: string, host?: string): Activities[K] {
    return activity(name, {
      queue: this.queue,
      summary,
      heartbeatTimeoutSeconds: this.input.heartbeatTimeoutSeconds,
      host,
    });
  }

  private mark(status: ChainStatus): void {
    this.state.progress.status = status;
    upsertSearchAttributes([
      { key: ChainStatusKey, value: status },
      { key: ChainStage, value: this.state.progress.stage + 1 },
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
