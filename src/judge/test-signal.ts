import type { DockerSandbox } from '../sandbox/docker-sandbox';
import type { PullRequest, TestSignal } from '../schemas';

/** The PR's own test files; their PR versions are what checks a stage. */
export function prTestFiles(pr: PullRequest): string[] {
  return pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path);
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
  const command = `${testCommand} ${files.join(' ')}`;
  if (!files.length) return { command, ran: false, passed: false, exitCode: -1, output: 'the PR changes no test file' };
  const quoted = files.map((f) => `'${f.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = await sandbox.exec(`git checkout ${pr.mergeSha} -- ${quoted} && ${command}`, {
    timeoutSeconds,
    maxOutputChars: 6_000,
  });
  return { command, ran: true, passed: r.exitCode === 0, exitCode: r.exitCode, output: r.output };
}
