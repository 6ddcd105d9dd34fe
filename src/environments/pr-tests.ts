import { runnerFor, type RunnerName } from './languages';
import type { Sandbox } from '../container/sandbox';
import type { PullRequest, TestSignal } from '../schemas';
import { journaled } from '../work-journal';
import { shellQuote } from '../process/shell-quote';
import { inlineTestFiles, overlayInlineTests } from './inline-tests';

/** How a stage's tests run: its environment's runner, and a configured command where there is one. */
export interface TestPlan {
  runner: RunnerName;
  test?: string;
  /** Directories put first on PATH for runs after a change (the merge's own resolution, where the environment holds one apart). */
  afterChangePath?: string[];
}

/** The PR's own test files; their PR versions are what checks a stage. */
export function prTestFiles(pr: PullRequest): string[] {
  return pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path);
}

/**
 * The PR's tests: its test files, whose PR versions replace the tree's whole, and the code files whose
 * inline tests it changes (inline-tests.ts), whose PR versions of those tests replace the tree's.
 */
export interface PrTests {
  files: string[];
  inline: string[];
}

export async function prTests(repoPath: string, pr: PullRequest): Promise<PrTests> {
  return { files: prTestFiles(pr), inline: await inlineTestFiles(repoPath, pr) };
}

/** Every file the PR's tests are in: what the runner narrows its run to. */
export function testPaths(tests: PrTests): string[] {
  return [...tests.files, ...tests.inline];
}

/**
 * The command that runs the PR's tests (all tests, where the runner cannot narrow to files) with a
 * per-test report. `afterChange`: a run after a change (the gold change, an agent's patch, an empty
 * one), which uses the merge's own resolution where the environment holds one apart from the base's.
 * `rerun`: the same tests again right after a run of this command on the same tree (TestRunner.rerun).
 */
export function prTestCommand(plan: TestPlan, files: string[], afterChange = false, rerun = false): string {
  const runner = runnerFor(plan.runner);
  // A configured command is run as configured, every time.
  const command = rerun && runner.rerun && !plan.test ? runner.rerun(files) : runner.command(files, plan.test);
  return afterChange && plan.afterChangePath?.length
    ? `export PATH=${plan.afterChangePath.join(':')}:$PATH
${command}`
    : command;
}

/**
 * What a test run keeps of its output (its head and tail, the middle cut): the per-test report comes
 * last and must be whole, for suites of tens of thousands of tests (a pytest line a test, ~100
 * characters, after the failures' tracebacks; a Surefire report line, 30 to 70). At 40k a suite of
 * 500 lost its middle, and with it the failures a run before the change names first: no test could
 * verify the stage; at 600k commons-collections4's 70,000 tests (4.7M characters of report) kept
 * 9,000, and every test the run before did not name was left out. Kept by reference, never in
 * workflow history.
 */
const TEST_OUTPUT_CHARS = 8_000_000;

/** Runs a test command in the sandbox's repository and reads its outcome, per test where the runner reports them. */
export async function runTests(
  sandbox: Sandbox,
  plan: TestPlan,
  command: string,
  timeoutSeconds: number,
): Promise<TestSignal> {
  const started = Date.now();
  const r = await journaled('test', command, () =>
    sandbox.exec(command, { timeoutSeconds, maxOutputChars: TEST_OUTPUT_CHARS }),
  );
  const cases = runnerFor(plan.runner).parse(r.output);
  // Exit 137 is also a SIGKILL from elsewhere (the tests, the kernel's OOM killer): a timeout only once the limit has passed.
  const timedOut = r.timedOut && Date.now() - started >= timeoutSeconds * 1000;
  return {
    command,
    ran: true,
    passed: r.exitCode === 0,
    exitCode: r.exitCode,
    output: r.output,
    ...(timedOut ? { timedOut: true } : {}),
    ...(cases ? { cases } : {}),
  };
}

/**
 * Overlays the PR's versions of its tests on the working tree and runs them, as a run after a change
 * (an agent's patch, or an empty one: prTestCommand's `afterChange`). The caller decides what happens
 * to the tree afterwards (the sandbox is thrown away, or reset for the agent).
 */
export async function runPrTests(
  sandbox: Sandbox,
  repoPath: string,
  pr: PullRequest,
  plan: TestPlan,
  timeoutSeconds: number,
): Promise<TestSignal> {
  const tests = await prTests(repoPath, pr);
  const command = prTestCommand(plan, testPaths(tests), true);
  if (!testPaths(tests).length)
    return { command, ran: false, passed: false, exitCode: -1, output: 'the PR changes no test file' };
  if (tests.files.length) {
    const overlay = await sandbox.exec(`git checkout ${pr.mergeSha} -- ${tests.files.map(shellQuote).join(' ')}`, {
      timeoutSeconds: 60,
      maxOutputChars: 4_000,
    });
    if (overlay.exitCode !== 0)
      return { command, ran: true, passed: false, exitCode: overlay.exitCode, output: overlay.output };
  }
  const problem = await overlayInlineTests(sandbox, repoPath, pr.mergeSha, tests.inline);
  if (problem) return { command, ran: true, passed: false, exitCode: -1, output: problem };
  return runTests(sandbox, plan, command, timeoutSeconds);
}
