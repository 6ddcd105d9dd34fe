import type Docker from 'dockerode';
import { costOf, type Price } from '../agent/pricing';
import type { Environments } from '../environments/builder';
import type { RecipeOverride } from '../environments/recipe';
import { commitDate } from '../environments/repo-files';
import { StageError } from '../errors';
import { goldTestsFor, invalidGold, type GoldValidationDeps } from '../judge/gold-validation';
import type { ModelClient } from '../model/client';
import { ModelError } from '../model/errors';
import { fillTemplate, promptTemplate } from '../model/prompt-files';
import { NO_REDACTION, type Redactor } from '../redact';
import { prTests, testPaths } from '../environments/pr-tests';
import type { Chain, GoldTests, SetupOutcome, StageReason, StageReasonKind } from '../schemas';
import { reasonOf, stageReason } from '../stage-reason';
import { Conversation, NoRecipeError } from './conversation';
import { toOverride } from './proposal';
import { RepoReader } from './read-tools';
import { TranscriptBlobs, type SetupCheckpoint, type SetupProgress, type SetupRun } from './progress';
import type { RecipesStore } from './recipes-file';
import { countStage, type SetupTally } from './tally';

/** Reasons that say the recipe did not set the stage up (it did not build, or its tests did not run), not that the stage itself is broken. */
const SETUP_KINDS: ReadonlySet<StageReasonKind> = new Set([
  'unsupported',
  'build-failed',
  'dependencies-unresolvable',
  'tests-not-runnable',
  'timeout',
]);

export interface SetupAgentOptions {
  /** Gold validation as `validate` and the activities do it; its environments use the saved recipes (`savedRecipe`). */
  gold: GoldValidationDeps;
  /** Environments that build `recipe` for the repository instead of detecting one (the same options otherwise). */
  environmentsWith: (recipe: (repoName: string) => RecipeOverride | undefined) => Environments;
  recipes: RecipesStore;
  /** Repositories the config names a recipe for: the agent leaves them alone. */
  configured: (repoName: string) => boolean;
  docker: Docker;
  /** The image the agent reads the repository in. */
  readerImage: string;
  /** Absent: no model is configured; saved recipes are still used, and a note says what a model would add. */
  model?: { client: ModelClient; name: string; price?: Price };
  /** Recipes proposed per stage at most (environments.setupAttempts). */
  attempts: number;
  redactor?: Redactor;
  /** One line for the user (a note, a warning, progress). */
  log: (line: string) => void;
  /**
   * A worker serves stages for as long as it runs: an outage there is forgotten after the stage it hit
   * (the next stage asks again). A `validate` run remembers it and asks no more.
   */
  forgetOutages?: boolean;
}

/**
 * The setup agent, a stage above the environments: where detection's recipe for a stage fails to build
 * or to run its tests, a recipe saved for the repository's nearest era is tried, and then (with a
 * model) the agent reads the repository at the stage's base and proposes recipes, each built the usual
 * way and gold-validated, the failure of one shown to it for the next, `attempts` at most. An accepted
 * recipe is saved per repository and era (recipes-file.ts), so later stages use it without a model
 * call. A model outage never stops the run: the stage keeps detection's failure, marked.
 */
export class SetupAgent {
  readonly tallies = new Map<string, SetupTally>();
  private outage?: string;
  private noted = false;

  constructor(private readonly opts: SetupAgentOptions) {}

  /**
   * goldTestsFor, with the agent's help where the detected recipe fails; errors that are no recipe's are
   * thrown as goldTestsFor throws them. `run` (an activity's) stops the agent on cancellation, and keeps
   * and resumes its progress across the activity's tries.
   */
  async goldTests(chain: Chain, stage: number, run: SetupRun = {}): Promise<GoldTests> {
    const { gold } = this.opts;
    let first: GoldTests;
    try {
      first = await goldTestsFor(gold, chain, stage);
      // Verified with a recipe the agent saved: the funnel counts the stage as the agent's.
      if (first.status === 'verified' && first.environment?.origin === 'setup-agent')
        return this.record(chain, first, {
          outcome: 'saved-recipe',
          attempts: 0,
          reasons: [],
          recipeFile: this.opts.recipes.path(chain.repo.name),
          ...zero(),
        });
      if (!needsSetup(first)) return first;
    } catch (err) {
      if (!(err instanceof StageError) || !SETUP_KINDS.has(reasonOf(err, 'build-failed').kind)) throw err;
      first = invalidGold(chain, stage, '', err.message, reasonOf(err, 'build-failed'));
    }
    const repo = chain.repo.name;
    const pr = chain.prs[stage];
    // A stage without tests has nothing to validate a recipe with; a configured recipe is the user's to fix.
    if (!testPaths(await prTests(chain.repo.path, pr)).length || this.opts.configured(repo)) return first;
    const date = await commitDate(chain.repo.path, pr.baseSha);
    // An earlier try of this stage got as far as the model: go on from there (nothing before it is asked again).
    const resume =
      run.resume &&
      run.resume.repo === repo &&
      run.resume.pr === pr.number &&
      run.resume.baseSha === pr.baseSha &&
      this.opts.model
        ? run.resume
        : undefined;
    if (resume) return this.agent(chain, stage, first, date, resume.reasons, run, resume);
    const reasons = [`detection: ${oneLine(first.reason)}`];
    // The era holding this base was tried above already (the environments use it): only another era's is new.
    const nearest = await this.opts.recipes.nearest(repo, date);
    if (nearest && !(Date.parse(nearest.from) <= date.getTime() && date.getTime() <= Date.parse(nearest.to))) {
      const tried = await this.tryRecipe(chain, stage, nearest.recipe);
      if (tried.status === 'verified')
        return this.accepted(
          chain,
          tried,
          date,
          nearest.recipe,
          { outcome: 'saved-recipe', attempts: 0, reasons },
          nearest.origin ?? 'saved',
        );
      reasons.push(
        `the saved recipe of ${nearest.from.slice(0, 10)}..${nearest.to.slice(0, 10)}: ${oneLine(tried.reason)}`,
      );
    }
    if (!this.opts.model) {
      if (!this.noted)
        this.opts.log(
          `note: ${repo} PR #${pr.number}: detection's recipe failed; a model endpoint (model.baseUrl) would let the setup agent propose one`,
        );
      this.noted = true;
      return first;
    }
    if (this.outage) return this.unavailable(chain, first, reasons, this.outage, zero());
    return this.agent(chain, stage, first, date, reasons, run);
  }

  private async agent(
    chain: Chain,
    stage: number,
    first: GoldTests,
    date: Date,
    given: string[],
    run: SetupRun,
    resume?: SetupProgress,
  ): Promise<GoldTests> {
    const model = this.opts.model!;
    const pr = chain.prs[stage];
    const redactor = this.opts.redactor ?? NO_REDACTION;
    const { signal } = run;
    const store = this.opts.gold.store;
    const reasons = [...given];
    const reader = await RepoReader.open(this.opts.docker, this.opts.readerImage, chain.repo.path, pr.baseSha);
    let conversation: Conversation | undefined;
    let attempt = resume?.attempt ?? 0;
    const transcript = new TranscriptBlobs(store, resume?.transcript);
    const spent = () => (conversation ? { requests: conversation.requests, ...conversation.usage } : zero());
    // After every model reply and every recipe's outcome: what a retried activity goes on from.
    const save = async () => {
      if (!run.save || !conversation) return;
      const { messages, usage, requests, step, problems, pending, proposal } = conversation.state;
      await run.save({
        repo: chain.repo.name,
        pr: pr.number,
        baseSha: pr.baseSha,
        attempt,
        step,
        problems: [...problems],
        reasons: [...reasons],
        transcript: await transcript.save(messages),
        ...(pending ? { pending } : {}),
        ...(proposal ? { proposal } : {}),
        requests,
        ...usage,
      });
    };
    try {
      const options = {
        client: model.client,
        model: model.name,
        reader,
        redactor,
        stage,
        onStep: save,
        ...(signal ? { signal } : {}),
      };
      const tests = testPaths(await prTests(chain.repo.path, pr));
      conversation = new Conversation(
        options,
        resume
          ? {
              messages: await TranscriptBlobs.load(store, resume.transcript),
              usage: { promptTokens: resume.promptTokens, completionTokens: resume.completionTokens },
              requests: resume.requests,
              step: resume.step,
              problems: [...resume.problems],
              ...(resume.pending ? { pending: resume.pending } : {}),
              ...(resume.proposal ? { proposal: resume.proposal } : {}),
            }
          : fillTemplate(promptTemplate('setup-agent', 'repository'), {
              repo: chain.repo.name,
              sha: pr.baseSha,
              root: await reader.root(),
              tests: tests.slice(0, 20).join(', ') + (tests.length > 20 ? ', …' : ''),
              detection: reasons.join('\n'),
            }),
      );
      if (resume)
        this.opts.log(
          `setup agent: ${chain.repo.name} PR #${pr.number}: resuming at recipe ${attempt + 1} after ${resume.requests} model call(s) an earlier try made`,
        );
      let last = first;
      while (attempt < this.opts.attempts) {
        this.opts.log(
          `setup agent: ${chain.repo.name} PR #${pr.number}: asking for recipe ${attempt + 1} of at most ${this.opts.attempts}`,
        );
        const recipe = toOverride(await conversation.propose(attempt));
        signal?.throwIfAborted();
        last = await this.tryRecipe(chain, stage, recipe);
        if (last.status === 'verified') {
          return this.accepted(
            chain,
            last,
            date,
            recipe,
            { outcome: 'rescued', attempts: attempt + 1, reasons, ...this.cost(spent()) },
            `setup agent, ${model.name}, ${attempt + 1} attempt(s)`,
          );
        }
        reasons.push(`recipe ${attempt + 1}: ${oneLine(last.reason)}`);
        const r = last.reason;
        conversation.feedback(
          fillTemplate(promptTemplate('setup-agent', 'failed'), {
            attempt: attempt + 1,
            left: this.opts.attempts - attempt - 1,
            summary: r ? `${r.kind}: ${r.summary}` : `${last.status}`,
            command: r?.command ?? '(none)',
            tail: r?.tail ?? '(no output)',
          }),
        );
        attempt += 1;
        await save();
      }
      return this.failed(chain, first, last, reasons, this.opts.attempts, spent());
    } catch (err) {
      // Cancelled (the model call in flight stopped with it): no outcome, the activity ends as cancelled.
      if (signal?.aborted) throw err;
      if (err instanceof NoRecipeError) {
        reasons.push(err.message);
        return this.failed(
          chain,
          first,
          first,
          reasons,
          reasons.filter((r) => r.startsWith('recipe ')).length,
          spent(),
        );
      }
      if (!(err instanceof ModelError)) throw err;
      // Down, or refusing the key: asked again for no other stage of this run, which goes on.
      if (!this.opts.forgetOutages) this.outage = err.message;
      this.opts.log(
        `warning: ${err.message}: ${this.opts.forgetOutages ? 'this stage is' : 'stages detection cannot set up are'} not set up by the setup agent in this run`,
      );
      return this.unavailable(chain, first, reasons, err.message, spent());
    } finally {
      await reader.close();
    }
  }

  /**
   * goldTests with the agent's progress kept in `checkpoint` while it works on the stage (an activity's
   * across its retries, activityCheckpoint; a stage's across `validate` runs, stageCheckpoint) and
   * resumed from there, then removed once the stage has its record. `signal` stops the agent.
   */
  async goldTestsResumable(
    chain: Chain,
    stage: number,
    checkpoint: SetupCheckpoint | undefined,
    signal?: AbortSignal,
  ): Promise<GoldTests> {
    const resume = await checkpoint?.load();
    const gold = await this.goldTests(chain, stage, {
      ...(signal ? { signal } : {}),
      ...(resume ? { resume } : {}),
      ...(checkpoint ? { save: (progress: SetupProgress) => checkpoint.save(progress) } : {}),
    });
    await checkpoint?.clear();
    return gold;
  }

  /** The stage validated with `recipe` in place of detection's; a recipe that does not build is a record with its reason. */
  private async tryRecipe(chain: Chain, stage: number, recipe: RecipeOverride): Promise<GoldTests> {
    const environments = this.opts.environmentsWith((name) => (name === chain.repo.name ? recipe : undefined));
    try {
      return await goldTestsFor({ ...this.opts.gold, environments }, chain, stage);
    } catch (err) {
      if (!(err instanceof StageError)) throw err;
      return invalidGold(chain, stage, '', err.message, reasonOf(err, 'build-failed'));
    }
  }

  private async accepted(
    chain: Chain,
    gold: GoldTests,
    date: Date,
    recipe: RecipeOverride,
    setup: Omit<SetupOutcome, 'requests' | 'promptTokens' | 'completionTokens'> & Partial<SetupOutcome>,
    origin: string,
  ): Promise<GoldTests> {
    const file = await this.opts.recipes.accept(chain.repo.name, date, recipe, origin);
    // Later stages (and this stage's rollout) resolve again, and find the saved recipe.
    this.opts.gold.environments.forget(chain.repo.name);
    return this.record(
      chain,
      { ...gold },
      { requests: 0, promptTokens: 0, completionTokens: 0, ...setup, recipeFile: file },
    );
  }

  /**
   * Every recipe failed: the stage keeps detection's record (no environment of a recipe that does not
   * work is passed on to a rollout), its reason listing every try, the last one's command and output.
   */
  private failed(
    chain: Chain,
    first: GoldTests,
    last: GoldTests,
    reasons: string[],
    attempts: number,
    spent: Spent,
  ): GoldTests {
    const r = last.reason;
    const summary = `the setup agent found no recipe that validates in ${attempts} attempt(s): ${reasons.join('; ')}`;
    const reason = stageReason(
      first.reason?.kind ?? 'build-failed',
      summary,
      r ? { command: r.command, exitCode: r.exitCode, output: r.tail } : undefined,
    );
    return this.record(
      chain,
      { ...first, reason },
      {
        outcome: 'failed',
        attempts,
        reasons,
        recipeFile: this.opts.recipes.path(chain.repo.name),
        ...this.cost(spent),
      },
    );
  }

  private unavailable(chain: Chain, first: GoldTests, reasons: string[], why: string, spent: Spent): GoldTests {
    const r = first.reason;
    const reason = r
      ? {
          ...r,
          summary: stageReason(r.kind, `not set up by the setup agent (the model is unavailable: ${why}); ${r.summary}`)
            .summary,
        }
      : undefined;
    const attempts = reasons.filter((line) => line.startsWith('recipe ')).length;
    return this.record(
      chain,
      { ...first, ...(reason ? { reason } : {}) },
      { outcome: 'model-unavailable', attempts, reasons: [...reasons, `model: ${why}`], ...this.cost(spent) },
    );
  }

  private record(chain: Chain, gold: GoldTests, setup: SetupOutcome): GoldTests {
    countStage(this.tallies, chain.repo.name, setup);
    return { ...gold, setup };
  }

  private cost(spent: Spent): Pick<SetupOutcome, 'requests' | 'promptTokens' | 'completionTokens' | 'costUsd'> {
    const cost = spent.requests ? costOf(spent, this.opts.model?.price) : 0;
    return {
      requests: spent.requests,
      promptTokens: spent.promptTokens,
      completionTokens: spent.completionTokens,
      ...(cost === undefined ? {} : { costUsd: Math.round(cost * 1e6) / 1e6 }),
    };
  }
}

type Spent = { requests: number; promptTokens: number; completionTokens: number };
const zero = (): Spent => ({ requests: 0, promptTokens: 0, completionTokens: 0 });

/** Whether a validation that ran says the recipe did not set the stage up (its tests did not run). */
function needsSetup(gold: GoldTests): boolean {
  return gold.status !== 'verified' && !!gold.reason && SETUP_KINDS.has(gold.reason.kind);
}

/** A reason in one short line, for the list of attempts. */
function oneLine(r: StageReason | undefined): string {
  if (!r) return 'no reason recorded';
  const text = `${r.kind}: ${r.summary}${r.command ? ` (\`${r.command.split('\n')[0].slice(0, 80)}\`${r.exitCode !== undefined ? `, exit ${r.exitCode}` : ''})` : ''}`;
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}
