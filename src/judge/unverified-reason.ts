import { testPasses, type GoldTests, type StageReason, type TestSignal } from '../schemas';
import { stageReason } from '../stage-reason';

/** The summary of a stage whose PR changes no test file: the funnel counts those apart. */
export const NO_TEST_FILES = 'the PR changes no test file';

/** What gold validation saw of a stage it could not verify: the PR's test command and its runs before and after the change. */
export interface UnverifiedRuns {
  command: string;
  /** Absent where the PR changes no test file (nothing ran). */
  before?: TestSignal;
  after?: TestSignal;
  gold: Pick<GoldTests, 'passToPass' | 'brokenOnGold'>;
  /** The line of the run's output that says a service was needed (serviceNeeded). */
  service?: string;
  /** What the run after the change says of the project's code that its toolchain cannot read (TestRunner.toolchainMismatch). */
  mismatch?: string;
  /** The reason the run after the change gives for skipping a test (TestRunner.skipReason). */
  skip?: string;
  /** Submodules the sandbox's checkouts left empty, the host not having their commits (missingSubmodules). */
  submodules?: string[];
  /** What the environment was built without, no registry serving it (Resolution.unserved). */
  unserved?: Array<{ name: string; why: string; named?: 'bare' }>;
  timeoutSeconds: number;
}

/**
 * Why the PR's tests verify nothing, most telling first: a run that hit its time limit, tests that
 * could not run (a service they need, a dependency no registry served or a submodule not fetched that
 * their output names, no test reported or none passing after the change), or tests that ran and of
 * which none fails before the change and passes after it. The run after the change is the one shown, unless
 * the run before is the one that timed out.
 */
export function unverifiedReason(v: UnverifiedRuns): StageReason {
  if (!v.after) return stageReason('no-verifying-test', NO_TEST_FILES);
  const timedOut = [v.before, v.after].find((r) => r?.timedOut);
  if (timedOut) return stageReason('timeout', `the PR's tests ran past their limit of ${v.timeoutSeconds}s`, timedOut);
  if (v.service)
    return stageReason(
      'tests-not-runnable',
      `the PR's tests seem to need a service the sandbox does not run ("${v.service}")`,
      v.after,
    );
  const skipped = skippedWhole(v.after, v.skip);
  if (skipped && !v.gold.passToPass.length) return stageReason('tests-not-runnable', skipped, v.after);
  // Not one of the PR's tests passes after the real change (none reported, or every one failing or in
  // error, as a test module that cannot be imported is): the environment cannot run them, whatever they check.
  const passing = (v.after.cases ?? []).filter((c) => testPasses(c.outcome));
  if (!v.after.passed && passing.length === 0 && !v.gold.passToPass.length) {
    if (v.mismatch)
      return stageReason(
        'unsupported',
        `the environment's toolchain cannot read the project's code (${v.mismatch}): its tests need one this host does not provide`,
        v.after,
      );
    const output = v.after.output;
    const needed = v.unserved?.find((u) => names(output, u));
    if (needed)
      return stageReason(
        'dependencies-unresolvable',
        `the PR's tests need ${needed.name}, which the environment was built without (${needed.why})`,
        v.after,
      );
    const submodule = v.submodules?.find((path) => output.includes(path));
    if (submodule)
      return stageReason(
        'dependencies-unresolvable',
        `the PR's tests read ${submodule}, a submodule whose commit the host could not fetch`,
        v.after,
      );
    const reported = v.after.cases?.length ?? 0;
    return stageReason(
      'tests-not-runnable',
      reported
        ? `none of the PR's ${reported} reported tests passes after the change (exit code ${v.after.exitCode})`
        : `the PR's tests report no test after the change (exit code ${v.after.exitCode})`,
      v.after,
    );
  }
  const { passToPass, brokenOnGold } = v.gold;
  const counts = `${passToPass.length} PASS_TO_PASS, ${brokenOnGold.length} failing after the gold change too`;
  return stageReason('no-verifying-test', `no test of the PR fails before it and passes after it (${counts})`, v.after);
}

/**
 * What to say of a run whose tests were all skipped, not run (every reported case skipped, or none
 * reported and the runner printing a skip): the environment cannot run them, whatever they check.
 */
function skippedWhole(after: TestSignal, skip: string | undefined): string | undefined {
  const cases = after.cases ?? [];
  if (cases.some((c) => c.outcome !== 'skipped') || (!cases.length && !skip)) return undefined;
  const which =
    cases.length > 1
      ? `all ${cases.length} of the PR's reported tests are`
      : cases.length
        ? "the PR's one reported test is"
        : "the PR's tests are";
  return `${which} skipped in this environment, not run${skip ? ` ("${skip}")` : ''}`;
}

/**
 * Whether a run's output names what was unserved: as an import's error quotes it (`cannot find package
 * "x"`), or bare (Maven's `the artifact g:a:jar:1.0 has not been downloaded`); never a longer name that
 * begins with it.
 */
function names(output: string, u: { name: string; named?: 'bare' }): boolean {
  if (u.named !== 'bare') return output.includes(`"${u.name}"`);
  const escaped = u.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w.-])`).test(output);
}
