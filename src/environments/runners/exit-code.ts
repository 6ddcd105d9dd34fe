import type { ExitCode, TestRunner } from '../contract';

/** A test command with no per-test report: the judge has only its exit code, and says so on the stage. */
export const exitCodeRunner: TestRunner<ExitCode> = {
  name: 'exit-code',
  // The whole suite: there is no telling a runner we do not know which files to run.
  command: (_files, override) => override ?? 'echo "no test command is known for this repository" >&2; exit 2',
  parse: () => undefined,
};
