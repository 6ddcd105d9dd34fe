import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { ArtifactStore } from '../artifacts/store';
import { StageError, TransientError } from '../errors';
import { diskAlmostFull } from './disk-space';
import type { Environments } from '../environments/builder';
import { checkoutLines, missingSubmodules } from '../container/checkout';
import type { ContainerSpec } from '../container/docker-container';
import { REPO_DIR } from '../container/sandbox';
import { StageSandbox } from '../stage/stage-sandbox';
import { stageInputProblem } from '../stage/inputs';
import {
  GoldTestsSchema,
  TestSignalSchema,
  testPasses,
  type Chain,
  type GoldTests,
  type StageReason,
  type TestCase,
  type TestSignal,
} from '../schemas';
import { redact, stageReason } from '../stage-reason';
import { prTestCommand, prTests, runTests, testPaths } from '../environments/pr-tests';
import { runnerFor } from '../environments/languages';
import { overlayInlineTests, testItemFunctions } from '../environments/inline-tests';
import { shellQuote } from '../process/shell-quote';
import { touchedFunctions, touchedTest } from './touched-tests';
import { NO_TEST_FILES, unverifiedReason } from './unverified-reason';
import { stabilize } from './gold-stability';
import { serviceNeeded } from './service-needed';
import { CARRY_TAG } from '../stage/carryover';
import { codeVersion } from '../code-version';

/** The one test of a runner without a per-test report: the test command's exit status. */
export const EXIT_CODE_TEST = '(exit code of the test command)';

/** The mark CappedOutput leaves where it cut the middle of a long output (src/container/output.ts). */
const CUT_MARK = /\n\[\.\.\. \d+ characters cut from the middle of this output \.\.\.\]\n/;

/** Whether a run's output was cut, so a test missing from its report may have run either way. */
export function outputCut(output: string): boolean {
  return CUT_MARK.test(output);
}

/** The run of the PR's tests at the base with the base's own versions of its test files (see validateGold). */
export interface BaselineRun {
  cases: TestCase[];
  /** False where its output was cut: a test it does not name may have passed there. */
  complete: boolean;
  /** The functions the PR's diff of its test files edits (touchedFunctions): tests among them changed with the PR. */
  touched: Set<string>;
}

/**
 * FAIL_TO_PASS and PASS_TO_PASS from the per-test outcomes before and after the gold change. Where the
 * report before is incomplete (its output was cut), a test it does not name is not FAIL_TO_PASS: it may
 * have passed in the part cut away. A test the run before does not name because the PR's test files
 * did not build at the base (a Java or Go test source, a Rust test target, all compile as one) is
 * FAIL_TO_PASS only where the PR edited it or the baseline run does not show it passing at the base
 * in its base version: otherwise every test beside the PR's new ones would count, though nothing about
 * them changed.
 */
export function classifyTests(
  before: TestCase[],
  after: TestCase[],
  command: string,
  { beforeComplete = true, baseline }: { beforeComplete?: boolean; baseline?: BaselineRun } = {},
): GoldTests {
  const was = new Map(before.map((c) => [c.id, c.outcome]));
  const atBase = new Map(baseline?.cases.map((c) => [c.id, c.outcome]));
  const gold: GoldTests = { command, failToPass: [], passToPass: [], brokenOnGold: [] };
  for (const { id, outcome } of after) {
    // A skipped test (Unity's IGNORE, a disabled CTest) checks nothing either way.
    if (outcome === 'skipped') continue;
    if (!testPasses(outcome)) gold.brokenOnGold.push(id);
    else if (testPasses(was.get(id))) gold.passToPass.push(id);
    else if (was.has(id)) gold.failToPass.push(id);
    else if (!beforeComplete) continue;
    else if (!baseline) gold.failToPass.push(id);
    else if (testPasses(atBase.get(id)))
      (touchedTest(id, baseline.touched) ? gold.failToPass : gold.passToPass).push(id);
    else if (atBase.has(id) || baseline.complete) gold.failToPass.push(id);
  }
  return gold;
}

/** Whether some test passes after the change that the run before did not name (the PR's test files may not have built there). */
export function unseenBefore(before: TestCase[], after: TestCase[]): boolean {
  const named = new Set(before.map((c) => c.id));
  return after.some((c) => testPasses(c.outcome) && !named.has(c.id));
}

/** A stage that cannot be used, with the reason; nothing ran. */
export function invalidGold(
  chain: Chain,
  stage: number,
  command: string,
  problem: string,
  reason?: StageReason,
): GoldTests {
  const pr = chain.prs[stage];
  return {
    command,
    failToPass: [],
    passToPass: [],
    brokenOnGold: [],
    repo: chain.repo.name,
    prNumber: pr.number,
    status: 'invalid',
    problem: redact(problem),
    ...(reason ? { reason } : {}),
  };
}

/**
 * Gold validation of one stage in a sandbox from the stage's environment image: the base checks out;
 * the earlier stages' gold work carries onto it; the PR's tests (their PR versions) run at the base
 * and at the merge (and, where the run at the base left out tests that pass at the merge, once more at
 * the base with its own test files) and are sorted into FAIL_TO_PASS and PASS_TO_PASS. A stage with no FAIL_TO_PASS
 * test is marked 'no-verifying-test'. A test runner without a per-test report yields empty lists,
 * and the judge falls back to the exit code.
 *
 * Stability (gold-stability.ts): the run at the merge is repeated `goldRuns` times, and a test whose
 * outcome differs between them is flaky and leaves both lists; a FAIL_TO_PASS test must fail with an
 * empty patch applied as an agent's is (the stage's starting state, carry included, then runPrTests).
 */
export async function validateGold(
  sandbox: StageSandbox,
  chain: Chain,
  stage: number,
  timeoutSeconds: number,
  goldRuns = 2,
  /** Runs each test run in turn; goldTestsFor keeps each one's result, so a retry after a crash runs only those not done. */
  testRun: (run: () => Promise<TestSignal>) => Promise<TestSignal> = (run) => run(),
): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const plan = sandbox.env;
  const tests = await prTests(chain.repo.path, pr);
  const files = testPaths(tests);
  const command = prTestCommand(plan, files);
  // Runs at the merge are runs after a change: on the merge's own resolution, where the environment holds one apart.
  const afterCommand = prTestCommand(plan, files, true);
  const sh = async (what: string, lines: string[]) => {
    const r = await sandbox.exec(`set -euo pipefail\n${lines.join('\n')}`, {
      timeoutSeconds: 600,
      maxOutputChars: 8_000,
      cwd: '/work',
    });
    if (r.exitCode !== 0) {
      const reason = stageReason('invalid-inputs', `gold validation of PR #${pr.number} could not ${what}`, {
        command: lines.join('; '),
        exitCode: r.exitCode,
        output: r.output,
      });
      throw new StageError(`gold validation of PR #${pr.number} could not ${what}:\n${r.output}`, { reason });
    }
    return r.output;
  };
  // The sandbox was opened with the carry a perfect agent would make (its tree is the gold tree, so the carried patch is empty).
  const carry = stage === 0 ? 'none' : sandbox.carry.conflicts.length ? 'conflicts' : 'clean';
  /** Submodules the checkouts below left empty, which a run's output may name. */
  let submodules: string[] = [];
  /** `runs`: the PR's tests before and after the change, where they ran (the one after tells of a service its tests needed). */
  const record = (gold: GoldTests, runs: { before?: TestSignal; after?: TestSignal } = {}): GoldTests => {
    // A run that passed needed no service, whatever a test of the project's own printed of a refused connection.
    const failed = runs.after?.passed === false ? runs.after : undefined;
    const service = gold.failToPass.length || gold.problem || !failed ? undefined : serviceNeeded(failed.output);
    return {
      ...gold,
      runner: plan.runner,
      repo: chain.repo.name,
      prNumber: pr.number,
      status: gold.failToPass.length ? 'verified' : 'no-verifying-test',
      ...(service
        ? { problem: `its tests seem to need a service the sandbox does not run (their output says "${service}")` }
        : {}),
      ...(gold.failToPass.length
        ? {}
        : {
            reason:
              withRun(gold.reason, runs.after) ??
              unverifiedReason({
                command,
                ...runs,
                gold,
                service,
                unserved: plan.manifest.resolution?.unserved,
                submodules,
                mismatch: runs.after && runnerFor(plan.runner).toolchainMismatch?.(runs.after.output),
                skip: runs.after && runnerFor(plan.runner).skipReason?.(runs.after.output),
                timeoutSeconds,
              }),
          }),
      checks: { baseChecksOut: true, goldApplies: true, carry },
    };
  };
  if (!files.length) return record({ command, failToPass: [], passToPass: [], brokenOnGold: [] });
  // Before the checkouts below move the tree: whether the starting state (carry included) is the base's own.
  const startsAtBase = await startIsBase(sandbox, pr.baseSha);
  const atBase = await sh('check out its base', [
    ...checkoutLines(pr.baseSha),
    ...(tests.files.length ? [`git checkout ${pr.mergeSha} -- ${tests.files.map(shellQuote).join(' ')}`] : []),
  ]);
  const overlay = await overlayInlineTests(sandbox, chain.repo.path, pr.mergeSha, tests.inline);
  if (overlay) {
    const why = `gold validation of PR #${pr.number} could not put its tests in: ${overlay}`;
    throw new StageError(why, { reason: stageReason('invalid-inputs', why) });
  }
  // A PR that changes only its tests: the base with the PR's test files is the merge's tree already.
  const sameTree = await treeIs(sandbox, pr.mergeSha);
  const before = await testRun(() => runTests(sandbox, plan, command, timeoutSeconds));
  submodules = missingSubmodules(atBase + (await sh('check out its merge', checkoutLines(pr.mergeSha))));
  const after = await testRun(() => runTests(sandbox, plan, afterCommand, timeoutSeconds));
  const perTest = !!(before.cases || after.cases);
  // No per-test report either time: the command's exit status is the one test, and the stage says so.
  const asCases = (run: TestSignal): TestCase[] =>
    perTest ? (run.cases ?? []) : [{ id: EXIT_CODE_TEST, outcome: run.passed ? 'passed' : 'failed' }];
  const beforeComplete = !perTest || !outputCut(before.output);
  // Stability is checked where something could verify the stage: with no candidate at all (the
  // baseline run below only takes candidates away), more runs would change no verdict.
  const candidates = classifyTests(asCases(before), asCases(after), command, { beforeComplete }).failToPass.length > 0;
  const runs = [after];
  // The tree is the one the run above tested: the runner may leave out the build work it did (TestRunner.rerun).
  const rerunCommand = prTestCommand(plan, files, true, true);
  while (candidates && runs.length < Math.max(1, goldRuns))
    runs.push(await testRun(() => runTests(sandbox, plan, rerunCommand, timeoutSeconds)));
  let baseline: BaselineRun | undefined;
  if (perTest && beforeComplete && unseenBefore(before.cases ?? [], after.cases ?? [])) {
    // Which of those passed at the base, where its test files are the base's own.
    await sh('check out its base again', checkoutLines(pr.baseSha));
    const run = await testRun(() => runTests(sandbox, plan, command, timeoutSeconds));
    const touched = await touchedFunctions(chain.repo.path, pr.baseSha, pr.mergeSha, tests.files);
    // In a code file, the hunks that name a function of its test items: the others are the gold change's.
    if (tests.inline.length) {
      const inTests = await testItemFunctions(chain.repo.path, pr.mergeSha, tests.inline);
      for (const name of await touchedFunctions(chain.repo.path, pr.baseSha, pr.mergeSha, tests.inline))
        if (inTests.has(name)) touched.add(name);
    }
    baseline = { cases: run.cases ?? [], complete: !outputCut(run.output), touched };
  }
  const gold = perTest
    ? {
        ...classifyTests(asCases(before), asCases(after), afterCommand, { beforeComplete, baseline }),
        signal: 'per-test' as const,
      }
    : { ...classifyTests(asCases(before), asCases(after), afterCommand), signal: 'exit-code' as const };
  // With an empty patch, as an agent's is applied: back to the starting state (carry included), then
  // the PR's tests. Where that state is the base's own tree and runs after a change use the base's
  // resolution too, the run at the base above is that run.
  let emptyPatch = before;
  if (gold.failToPass.length && (!startsAtBase || plan.afterChangePath?.length)) {
    await sh('return to its starting state', [`cd ${REPO_DIR}`, `git reset -q --hard ${CARRY_TAG}`, 'git clean -qfd']);
    emptyPatch = await testRun(() => sandbox.runPrTests(pr, timeoutSeconds));
  }
  // Where the run before the change ran the same tree as those after, a test that failed then and
  // passes now changed its outcome by chance: that run is one more of the stability runs.
  const sameTreeRuns = sameTree && command === afterCommand ? [before, ...runs] : runs;
  return record(stabilize(gold, sameTreeRuns.map(asCases), asCases(emptyPatch)), { before, after });
}

/** Whether the work tree (tracked files) is `sha`'s tree. */
async function treeIs(sandbox: StageSandbox, sha: string): Promise<boolean> {
  const r = await sandbox.exec(`cd ${REPO_DIR} && git diff --quiet ${sha} --`, {
    timeoutSeconds: 60,
    maxOutputChars: 1_000,
  });
  return r.exitCode === 0;
}

/** Whether the sandbox's starting state (CARRY_TAG) has the base's tree: no carry changed it. */
async function startIsBase(sandbox: StageSandbox, baseSha: string): Promise<boolean> {
  const r = await sandbox.exec(`git rev-parse ${CARRY_TAG}^{tree} ${baseSha}^{tree}`, {
    timeoutSeconds: 60,
    maxOutputChars: 1_000,
  });
  const [start, base] = r.output.trim().split('\n');
  return r.exitCode === 0 && !!start && start === base;
}

/** A reason stabilize() gave (flaky, passing with an empty patch), with the exit code and last lines of the run after the change. */
function withRun(reason: StageReason | undefined, after: TestSignal | undefined): StageReason | undefined {
  if (!reason || reason.tail || !after) return reason;
  return stageReason(reason.kind, reason.summary, {
    command: reason.command ?? after.command,
    exitCode: after.exitCode,
    output: after.output,
  });
}

export interface GoldValidationDeps {
  docker: Docker;
  store: ArtifactStore;
  sandbox: Omit<ContainerSpec, 'mirrorPath' | 'labels' | 'image'>;
  environments: Environments;
  timeoutSeconds?: number;
  /** Runs of the PR's tests after the gold change (environments.goldRuns): a test whose outcome differs between them is flaky. */
  goldRuns?: number;
}

/**
 * The gold validation of one stage, computed once per PR, environment and test command and kept in
 * the artifact store (a retried activity or a second chain through the same PR reuses it). A stage
 * whose inputs are broken (a missing commit, a gold patch that does not apply) is recorded as
 * 'invalid' with the reason; an environment that cannot be built throws StageError.
 */
export async function goldTestsFor(deps: GoldValidationDeps, chain: Chain, stage: number): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const problem = await stageInputProblem(chain.repo.path, pr);
  if (problem) return invalidGold(chain, stage, '', problem, stageReason('invalid-inputs', problem));
  const tests = await prTests(chain.repo.path, pr);
  const files = testPaths(tests);
  if (!files.length) return withoutTests(deps, chain, stage);
  const env = await deps.environments.forStage(chain, stage);
  const previous = stage > 0 ? chain.prs[stage - 1].mergeSha : '';
  // The command itself, not only the runner's name: a runner that runs a PR's tests differently (cargo's features) validates again.
  const command = prTestCommand(env, files, true);
  const runs = deps.goldRuns ?? 2;
  const key = createHash('sha256')
    // The files whose inline tests are overlaid too: a command need not name them (cargo's `--tests`).
    .update(
      `${codeVersion()} ${runs} ${pr.baseSha} ${pr.mergeSha} ${previous} ${env.image} ${env.runner} ${command} ${tests.inline.join(' ')}`,
    )
    .digest('hex')
    .slice(0, 24);
  const pointer = `gold-tests/${key}`;
  const known = await deps.store.getPointer(pointer);
  if (known)
    return { ...(await deps.store.getJson(known, GoldTestsSchema)), repo: chain.repo.name, prNumber: pr.number };
  const sandbox = await StageSandbox.open(
    deps,
    chain,
    stage,
    { role: { kind: 'gold' }, carryPatch: stage > 0 ? '' : undefined },
    env,
  );
  const kept = keptRuns(deps.store, key);
  try {
    const { manifest } = env;
    const r = manifest.resolution;
    const gold: GoldTests = {
      ...(await validateGold(sandbox, chain, stage, deps.timeoutSeconds ?? 600, runs, kept)),
      environment: {
        image: env.image,
        language: manifest.language,
        origin: manifest.origin,
        toolchain: manifest.toolchain.version,
        ...(r
          ? {
              dependencies: `${r.tool}, ${r.lock === 'committed' ? 'lock file as committed' : `resolved${r.asOf ? ` as of ${r.asOf.slice(0, 10)}` : ''}`}, ${r.packages.length} packages`,
            }
          : {}),
      },
    };
    // Not kept where a disk was all but full: the stage may have failed for the disk (gold-yield.ts stops the run).
    const full = gold.status !== 'verified' && (await diskAlmostFull(deps.docker, [deps.environments.dataDir]));
    if (full) throw new TransientError(`${full}: the validation of PR #${pr.number} is not kept`);
    await deps.store.setPointer(pointer, await deps.store.putJson(gold));
    // The whole validation is kept now: its runs' pointers would only pile up (one set per stage and environment).
    await kept.forget();
    return gold;
  } finally {
    await sandbox.destroy();
  }
}

/**
 * Each test run of one validation (`key`), kept in the store once done: a worker killed during the run
 * after the gold change leaves the run before it kept, and the retry runs only the one under way. A
 * run's result depends only on what the key holds (the commits, the image, the command, the number of
 * runs), and the runs go in the same order, so a kept one is the one the retry would get.
 */
function keptRuns(
  store: ArtifactStore,
  key: string,
): ((run: () => Promise<TestSignal>) => Promise<TestSignal>) & { forget(): Promise<void> } {
  let n = 0;
  const kept = async (run: () => Promise<TestSignal>) => {
    const pointer = `gold-runs/${key}/${n++}`;
    const known = await store.getPointer(pointer);
    if (known) return store.getJson(known, TestSignalSchema);
    const signal = await run();
    await store.setPointer(pointer, await store.putJson(signal));
    return signal;
  };
  /** Removes the pointers of every run this validation made or read. */
  const forget = async () => {
    for (let i = 0; i < n; i++) await store.removePointer(`gold-runs/${key}/${i}`);
  };
  return Object.assign(kept, { forget });
}

/**
 * A stage whose PR changes no test file: no test of it can verify it, so no environment is built for
 * it here (a rollout builds it when it needs it); its recipe is detected for the language it reports.
 */
async function withoutTests(deps: GoldValidationDeps, chain: Chain, stage: number): Promise<GoldTests> {
  const recipe = await deps.environments.recipeFor(chain, stage);
  const why = NO_TEST_FILES;
  return {
    command: '',
    failToPass: [],
    passToPass: [],
    brokenOnGold: [],
    repo: chain.repo.name,
    prNumber: chain.prs[stage].number,
    runner: recipe.runner,
    status: 'no-verifying-test',
    problem: why,
    reason: stageReason('no-verifying-test', why),
    // Not built: the image is empty; the language is the detected recipe's.
    environment: { image: '', language: recipe.language, origin: recipe.origin, toolchain: '' },
  };
}

/**
 * Whether something can judge a validated stage: a FAIL_TO_PASS test, or (for a stage whose tests tell
 * nothing) a judge model. A stage nothing can judge is never rolled out: no rollout could be scored.
 */
export function stageCheck(
  gold: GoldTests,
  judgeModel: boolean,
): { status: NonNullable<GoldTests['status']>; judgeable: boolean; reason?: string; detail?: StageReason } {
  const status = gold.status ?? (gold.failToPass.length ? 'verified' : 'no-verifying-test');
  if (status === 'verified') return { status, judgeable: true };
  const detail = gold.reason ? { detail: gold.reason } : {};
  if (status === 'invalid')
    return {
      status,
      judgeable: false,
      reason: gold.reason
        ? `${gold.reason.kind}: ${gold.reason.summary}`
        : (gold.problem ?? 'the stage cannot be set up'),
      ...detail,
    };
  if (judgeModel) return { status, judgeable: true, ...detail };
  const why =
    gold.reason && gold.reason.kind !== 'no-verifying-test'
      ? `; ${gold.reason.kind}: ${gold.reason.summary}`
      : gold.problem
        ? `; ${gold.problem}`
        : '';
  return {
    status,
    judgeable: false,
    reason: `no test of the PR fails before it and passes after it, and no judge model is configured${why}`,
    ...detail,
  };
}
