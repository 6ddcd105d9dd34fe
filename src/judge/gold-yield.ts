import { ChainsmithError, StageError, TransientError } from '../errors';
import type { Chain, GoldTests, StageReasonKind } from '../schemas';
import { formatReason, reasonOf } from '../stage-reason';
import { goldTestsFor, invalidGold, type GoldValidationDeps } from './gold-validation';
import { diskAlmostFull } from './disk-space';

/** Where a stage's record stands in the chains: a resumed `validate` finds it by these. */
export interface StagePlace {
  chainId: string;
  stage: number;
}

export interface ValidateStagesOptions {
  /** The record of a stage validated before (a resumed run's --out), which is then not validated again. */
  known?: (place: StagePlace, chain: Chain) => GoldTests | undefined;
  /** How one stage is validated (the setup agent's goldTests); goldTestsFor by default. */
  goldTests?: (chain: Chain, stage: number) => Promise<GoldTests>;
}

/**
 * Validates every stage of the chains (cached per stage), one after another, and says how each went.
 * A stage that fails in any way of its own (its dependencies, its build, its tests, a broken input)
 * is recorded with its typed reason and the others go on. An error that is no stage's own (Docker or
 * the artifact store stopped answering, a registry that did not answer twice) stops the run: thrown,
 * with every record made so far already handed to onStage.
 */
export async function validateStages(
  deps: GoldValidationDeps,
  chains: Chain[],
  onStage: (
    record: GoldTests,
    done: number,
    total: number,
    place: StagePlace & { known: boolean },
  ) => void | Promise<void> = () => {},
  opts: ValidateStagesOptions = {},
): Promise<GoldTests[]> {
  const total = chains.reduce((n, c) => n + c.prs.length, 0);
  const records: GoldTests[] = [];
  for (const chain of chains) {
    for (let stage = 0; stage < chain.prs.length; stage++) {
      const place = { chainId: chain.id, stage };
      const known = opts.known?.(place, chain);
      const record = known ?? (await validateStage(deps, chain, stage, opts.goldTests));
      records.push(record);
      await onStage(record, records.length, total, { ...place, known: !!known });
    }
  }
  return records;
}

/**
 * One stage, its failures its own reason; tried twice where what failed may not be the stage's (see
 * validateStages). A stage that failed while a disk validation writes to was all but full may have
 * failed for the disk, not for itself: the run stops there (a rerun with room validates it again).
 */
async function validateStage(
  deps: GoldValidationDeps,
  chain: Chain,
  stage: number,
  goldTests = (c: Chain, s: number) => goldTestsFor(deps, c, s),
): Promise<GoldTests> {
  const stopped = async (cause?: unknown) => {
    const full = await lowDisk(deps);
    const why = cause instanceof Error ? ` (${cause.message.split('\n')[0]})` : '';
    return (
      full &&
      new TransientError(`${full}; validation stopped at ${chain.repo.name} PR #${chain.prs[stage].number}${why}`, {
        cause,
      })
    );
  };
  for (let attempt = 1; ; attempt++) {
    let record: GoldTests;
    try {
      record = await goldTests(chain, stage);
    } catch (err) {
      const full = await stopped(err);
      if (full) throw full;
      if (err instanceof StageError)
        return withLanguage(
          deps,
          chain,
          stage,
          invalidGold(chain, stage, '', err.message, reasonOf(err, 'invalid-inputs')),
        );
      const down = await infrastructureDown(deps);
      if (down)
        throw new TransientError(
          `${down}; validation stopped at ${chain.repo.name} PR #${chain.prs[stage].number} (${(err as Error).message})`,
          { cause: err },
        );
      if (attempt < 2) continue;
      // A retryable fault twice over (a registry that does not answer): a later run may do better, so it
      // stops here. A sandbox that hung or died under the stage's own commands (Docker answering) is the stage's.
      if (err instanceof ChainsmithError && !err.permanent && !SANDBOX_FAULT.test(err.message)) throw err;
      // Anything else (a report no parser expected, a tool's own error) is this stage's: it is recorded, the run goes on.
      return withLanguage(
        deps,
        chain,
        stage,
        invalidGold(chain, stage, '', (err as Error).message, reasonOf(err, unexpectedKind(err))),
      );
    }
    const full = record.reason && (await stopped());
    if (full) throw full;
    return record.environment ? record : await withLanguage(deps, chain, stage, record);
  }
}

/** A stage that got no environment, with the language its recipe is for, where one is detected (a missing base has none). */
async function withLanguage(
  deps: GoldValidationDeps,
  chain: Chain,
  stage: number,
  record: GoldTests,
): Promise<GoldTests> {
  const recipe = await deps.environments.recipeFor(chain, stage).catch(() => undefined);
  return recipe ? { ...record, language: recipe.language } : record;
}

/** A disk validation writes to that is all but full (disk-space.ts), as a sentence. */
function lowDisk(deps: GoldValidationDeps): Promise<string | undefined> {
  return diskAlmostFull(deps.docker, [deps.environments.dataDir]);
}

/** What the run cannot go on without, when it stopped answering: Docker, or the artifact store. */
async function infrastructureDown(deps: GoldValidationDeps): Promise<string | undefined> {
  const docker = await deps.docker.ping().then(
    () => undefined,
    (err: Error) => `the Docker engine no longer answers (${err.message})`,
  );
  if (docker) return docker;
  return deps.store.getPointer('validate/health').then(
    () => undefined,
    (err: Error) => `the artifact store no longer answers (${err.message})`,
  );
}

/** What the sandbox session says when the stage's commands wedged or killed it (src/container/shell-session.ts). */
const SANDBOX_FAULT =
  /did not return \d+s after its timeout|the sandbox stopped while a command ran|sandbox shell (closed|ended)/;

/** The kind of an error no stage code expected, from what it says. */
function unexpectedKind(err: unknown): StageReasonKind {
  const message = err instanceof Error ? err.message : String(err);
  if (/timed? ?out|did not return/i.test(message)) return 'timeout';
  if (/environment|image|build/i.test(message)) return 'build-failed';
  return 'tests-not-runnable';
}

/**
 * A stage as `validate` prints it when it is done: one line, and under a stage not verified its
 * reason whole (the command that failed, its exit code, its last lines).
 */
export function describeStage(g: GoldTests): string {
  const where = `${g.repo ?? '?'} PR #${g.prNumber ?? '?'}`;
  const flaky = g.flaky?.length ? `, ${g.flaky.length} flaky` : '';
  if (g.failToPass.length)
    return `${where}: verified (${g.failToPass.length} FAIL_TO_PASS, ${g.passToPass.length} PASS_TO_PASS${flaky})`;
  if (g.reason) return `${where}: ${formatReason(g.reason)}`;
  // Records written before reasons were typed.
  if (g.status === 'invalid') return `${where}: invalid: ${firstLine(g.problem ?? 'cannot be set up')}`;
  return `${where}: no verifying test (${g.passToPass.length} PASS_TO_PASS, ${g.brokenOnGold.length} broken on the gold change)`;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
