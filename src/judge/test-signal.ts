import type { DockerSandbox } from '../sandbox/docker-sandbox';
import type { PullRequest, TestSignal } from '../schemas';
import { isPytest, parsePytestSummary, PYTEST_SUMMARY_FLAG } from './test-cases';

/** The PR's own test files; their PR versions are what checks a stage. */
export function prTestFiles(pr: PullRequest): string[] {
  return pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path);
}

export function quotePaths(files: string[]): string {
  return files.map((f) => `'${f.replace(/'/g, `'\\''`)}'`).join(' ');
}

/** The command that runs the PR's tests; pytest is asked for a per-test summary so outcomes can be compared. */
export function prTestCommand(testCommand: string, files: string[]): string {
  return [testCommand, ...(isPytest(testCommand) ? [PYTEST_SUMMARY_FLAG] : []), ...files].join(' ');
}

/** Runs a test command in the sandbox's repository and reads its outcome, per test where it can. */
export async function runTests(sandbox: DockerSandbox, command: string, timeoutSeconds: number): Promise<TestSignal> {
  // The per-test summary comes last; 40k characters keep it whole for suites of some hundred tests.
  const r = await sandbox.exec(command, { timeoutSeconds, maxOutputChars: 40_000 });
  const cases = parsePytestSummary(r.output);
  return { command, ran: true, passed: r.exitCode === 0, exitCode: r.exitCode, output: r.output, ...(cases ? { cases } : {}) };
}

/**
 * Overlays the PR's versions of its test files on the working tree and runs them. The caller decides
 * what happens to the tree afterwards (the sandbox is thrown away, or reset for the agent).
 */
export async function runPrTests(
  sandbox: DockerSandbox,
  pr: PullRequest,
  testCommand: string,
  timeoutSeconds: number,
): Promise<TestSignal> {
  const files = prTestFiles(pr);
  const command = prTestCommand(testCommand, files);
  if (!files.length) return { command, ran: false, passed: false, exitCode: -1, output: 'the PR changes no test file' };
  const overlay = await sandbox.exec(`git checkout ${pr.mergeSha} -- ${quotePaths(files)}`, { timeoutSeconds: 60, maxOutputChars: 4_000 });
  if (overlay.exitCode !== 0) return { command, ran: true, passed: false, exitCode: overlay.exitCode, output: overlay.output };
  return runTests(sandbox, command, timeoutSeconds);
}
