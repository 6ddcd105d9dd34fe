import { InputError } from '../errors';

/** Errors raised while reading pull requests out of a repository. */
export class MiningError extends InputError {}

/** The path is not (the top of) a git repository; retrying cannot help. */
export class NotAGitRepositoryError extends MiningError {
  constructor(
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(`not a git repository: ${path}`, options);
  }
}

/** A git command exited non-zero; `stderr` says why. */
export class GitCommandError extends MiningError {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | string | undefined,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(`git ${args.join(' ')} failed (${exitCode ?? 'no exit code'}): ${stderr.trim()}`, options);
  }
}
