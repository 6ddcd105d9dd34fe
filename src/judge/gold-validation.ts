import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { ArtifactStore } from '../artifacts/store';
import { StageError } from '../errors';
import type { Environments } from '../environments/builder';
import { checkoutLines } from '../sandbox/checkout';
import type { SandboxSpec } from '../sandbox/docker-sandbox';
import { StageSandbox } from '../sandbox/stage-sandbox';
import { stageInputProblem } from '../sandbox/stage-inputs';
import { GoldTestsSchema, TestSignalSchema, type Chain, type GoldTests, type TestCase, type TestSignal } from '../schemas';
import { prTestCommand, prTestFiles, quotePaths, runTests } from '../sandbox/pr-tests';
import { touchedFunctions, touchedTest } from './touched-tests';

const passes = (outcome?: TestCase['outcome']) => outcome === 'passed' || outcome === 'xpassed';

/** Part of every stored validation's key: bumped when tests are sorted differently, so older sortings are not reused. */
const RULES = 'rules-4';

/** The one test of a runner without a per-test report: the test command's exit status. */
export const EXIT_CODE_TEST = '(exit code of the test command)';

/** The mark CappedOutput leaves where it cut the middle of a long output (src/sandbox/output.ts). */
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
    if (!passes(outcome)) gold.brokenOnGold.push(id);
    else if (passes(was.get(id))) gold.passToPass.push(id);
    else if (was.has(id)) gold.failToPass.push(id);
    else if (!beforeComplete) continue;
    else if (!baseline) gold.failToPass.push(id);
    else if (passes(atBase.get(id))) (touchedTest(id, baseline.touched) ? gold.failToPass : gold.passToPass).push(id);
    else if (atBase.has(id) || baseline.complete) gold.failToPass.push(id);
  }
  return gold;
}

/** Whether some test passes after the change that the run before did not name (the PR's test files may not have built there). */
export function unseenBefore(before: TestCase[], after: TestCase[]): boolean {
  const named = new Set(before.map((c) => c.id));
  return after.some((c) => passes(c.outcome) && !named.has(c.id));
}

/** A stage that cannot be used, with the reason; nothing ran. */
export function invalidGold(chain: Chain, stage: number, command: string, problem: string): GoldTests {
  const pr = chain.prs[stage];
  return { command, failToPass: [], passToPass: [], brokenOnGold: [], repo: chain.repo.name, prNumber: pr.number, status: 'invalid', problem };
}

/**
 * Gold validation of one stage in a sandbox from the stage's environment image: the base checks out;
 * the earlier stages' gold work carries onto it; the PR's tests (their PR versions) run at the base
 * and at the merge (and, where the run at the base left out tests that pass at the merge, once more at
 * the base with its own test files) and are sorted into FAIL_TO_PASS and PASS_TO_PASS. A stage with no FAIL_TO_PASS
 * test is marked 'no-verifying-test'. A test runner without a per-test report yields empty lists,
 * and the judge falls back to the exit code.
 */
export async function validateGold(
  sandbox: StageSandbox,
  chain: Chain,
  stage: number,
  timeoutSeconds: number,
  /** Runs each test run in turn; goldTestsFor keeps each one's result, so a retry after a crash runs only those not done. */
  testRun: (run: () => Promise<TestSignal>) => Promise<TestSignal> = (run) => run(),
): Promise<GoldTests> {
  const pr = chain.prs[stage];
  const plan = sandbox.env;
  const files = prTestFiles(pr);
  const command = prTestCommand(plan, files);
  const sh = async (what: string, lines: string[]) => {
    const r = await sandbox.exec(`set -euo pipefail\n${lines.join('\n')}`, { timeoutSeconds: 600, maxOutputChars: 8_000, cwd: '/work' });
    if (r.exitCode !== 0) throw new StageError(`gold validation of PR #${pr.number} could not ${what}:\n${r.output}`);
    return r.output;
  };
  // The sandbox was opened with the carry a perfect agent would make (its tree is the gold tree, so the carried patch is empty).
  const carry = stage === 0 ? 'none' : sandbox.carry.conflicts.length ? 'conflicts' : 'clean';
  /** `output`: the run after the change, where one ran (what tells of a service its tests needed). */
  const record = (gold: GoldTests, output = ''): GoldTests => {
    const service = gold.failToPass.length ? undefined : serviceNeeded(output);
    return {
      ...gold,
      runner: plan.runner,
      repo: chain.repo.name,
      prNumber: pr.number,
      status: gold.failToPass.length ? 'verified' : 'no-verifying-test',
      ...(service ? { problem: `its tests seem to need a service the sandbox does not run (their output says "${service}")` } : {}),
      checks: { baseChecksOut: true, goldApplies: true, carry },
    };
  };
  if (!files.length) return record({ command, failToPass: [], passToPass: [], brokenOnGold: [] });
  await sh('check out its base', [...checkoutLines(pr.baseSha), `git checkout ${pr.mergeSha} -- ${quotePaths(files)}`]);
  const before = await testRun(() => runTests(sandbox, plan, command, timeoutSeconds));
  await sh('check out its merge', checkoutLines(pr.mergeSha));
  const after = await testRun(() => runTests(sandbox, plan, command, timeoutSeconds));
  if (!before.cases && !after.cases) {
    // No per-test report either time: the command's exit status is the one test, and the stage says so.
    const status = (passed: boolean): TestCase[] => [{ id: EXIT_CODE_TEST, outcome: passed ? 'passed' : 'failed' }];
    return record({ ...classifyTests(status(before.passed), status(after.passed), command), signal: 'exit-code' }, after.output);
  }
  const beforeComplete = !outputCut(before.output);
  let baseline: BaselineRun | undefined;
  if (beforeComplete && unseenBefore(before.cases ?? [], after.cases ?? [])) {
    // Which of those passed at the base, where its test files are the base's own.
    await sh('check out its base again', checkoutLines(pr.baseSha));
    const run = await testRun(() => runTests(sandbox, plan, command, timeoutSeconds));
    const touched = await touchedFunctions(chain.repo.path, pr.baseSha, pr.mergeSha, files);
    baseline = { cases: run.cases ?? [], complete: !outputCut(run.output), touched };
  }
  return record({ ...classifyTests(before.cases ?? [], after.cases ?? [], command, { beforeComplete, baseline }), signal: 'per-test' }, after.output);
}

/**
 * A database, cache or broker the tests tried to reach (sandboxes have no network and run no
 * services): the line that says so, for a stage's reason; undefined when the output shows none.
 */
const SERVICE_FAILURE =
  /(could not connect to server|connection to server at .* failed|Can't connect to (local )?MySQL server|Error 111 connecting to|dial tcp [^\n]*:(5432|3306|6379|27017|9092|5672|9200)\b|ECONNREFUSED [^\s]*:(5432|3306|6379|27017|9092|5672|9200)\b|Cannot connect to the Docker daemon)[^\n]*/i;
export function serviceNeeded(output: string): string | undefined {
  return SERVICE_FAILURE.exec(output)?.[0].trim().slice(0, 160);
}

export interface GoldValidationDeps {
  docker: Docker;
  store: ArtifactStore;
  sandbox: Omit<SandboxSpec, 'mirrorPath' | 'labels' | 'image'>;
  environments: Environments;
  timeoutSeconds?: number;
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
  if (problem) return invalidGold(chain, stage, '', problem);
  const env = await deps.environments.forStage(chain, stage);
  const previous = stage > 0 ? chain.prs[stage - 1].mergeSha : '';
  // The command itself, not only the runner's name: a runner that runs a PR's tests differently (cargo's features) validates again.
  const command = prTestCommand(env, prTestFiles(pr));
  const key = createHash('sha256').update(`${RULES} ${pr.baseSha} ${pr.mergeSha} ${previous} ${env.image} ${env.runner} ${command}`).digest('hex').slice(0, 24);
  const pointer = `gold-tests/${key}`;
  const known = await deps.store.getPointer(pointer);
  if (known) return { ...(await deps.store.getJson(known, GoldTestsSchema)), repo: chain.repo.name, prNumber: pr.number };
  const sandbox = await StageSandbox.open(deps, chain, stage, { role: { kind: 'gold' }, carryPatch: stage > 0 ? '' : undefined }, env);
  try {
    const { manifest } = env;
    const r = manifest.resolution;
    const gold: GoldTests = {
      ...(await validateGold(sandbox, chain, stage, deps.timeoutSeconds ?? 600, keptRuns(deps.store, key))),
      environment: {
        image: env.image,
        language: manifest.language,
        origin: manifest.origin,
        toolchain: manifest.toolchain.version,
        ...(r ? { dependencies: `${r.tool}, ${r.lock === 'committed' ? 'lock file as committed' : `resolved${r.asOf ? ` as of ${r.asOf.slice(0, 10)}` : ''}`}, ${r.packages.length} packages` } : {}),
      },
    };
    await deps.store.setPointer(pointer, await deps.store.putJson(gold));
    return gold;
  } finally {
    await sandbox.destroy();
  }
}

/**
 * Each test run of one validation (`key`), kept in the store once done: a worker killed during the run
 * after the gold change leaves the run before it kept, and the retry runs only the one under way. A
 * run's result depends only on what the key holds (the commits, the image, the command), so a kept one
 * is the one the retry would get.
 */
function keptRuns(store: ArtifactStore, key: string): (run: () => Promise<TestSignal>) => Promise<TestSignal> {
  let n = 0;
  return async (run) => {
    const pointer = `gold-runs/${key}/${n++}`;
    const known = await store.getPointer(pointer);
    if (known) return store.getJson(known, TestSignalSchema);
    const signal = await run();
    await store.setPointer(pointer, await store.putJson(signal));
    return signal;
  };
}

/**
 * Whether something can judge a validated stage: a FAIL_TO_PASS test, or (for a stage whose tests tell
 * nothing) a judge model. A stage nothing can judge is never rolled out: no rollout could be scored.
 */
export function stageCheck(gold: GoldTests, judgeModel: boolean): { status: NonNullable<GoldTests['status']>; judgeable: boolean; reason?: string } {
  const status = gold.status ?? (gold.failToPass.length ? 'verified' : 'no-verifying-test');
  if (status === 'verified') return { status, judgeable: true };
  if (status === 'invalid') return { status, judgeable: false, reason: gold.problem ?? 'the stage cannot be set up' };
  if (judgeModel) return { status, judgeable: true };
  const why = gold.problem ? `; ${gold.problem}` : '';
  return { status, judgeable: false, reason: `no test of the PR fails before it and passes after it, and no judge model is configured${why}` };
}
