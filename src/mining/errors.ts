import { InputError, TransientError } from '../errors';

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

/** The GitHub API knows no such repository, or the token may not see it. */
export class RepositoryNotFoundError extends MiningError {}

/**
 * GitHub cannot answer now, through no fault of the input: running the same command later helps, and
 * the message says when. The CLI exits with EXIT_RETRY_LATER (cli/exit-codes.ts), not as bad input.
 */
class GitHubRetryLaterError extends TransientError {
  constructor(
    message: string,
    /** When GitHub said it would answer again, if it said. */
    readonly retryAt?: Date,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** How long until then: a retrying activity waits this long (activity-failure.ts). */
  get retryAfterMs(): number | undefined {
    return this.retryAt ? Math.max(0, this.retryAt.getTime() - Date.now()) : undefined;
  }
}

/** GitHub's rate limit ran out and the reset is further away than we are willing to wait. */
export class RateLimitError extends GitHubRetryLaterError {}

/** GitHub kept failing (5xx, network) after the retries. */
export class GitHubUnavailableError extends GitHubRetryLaterError {}

/** GitHub sent something that does not match what its API documents; `detail` says where. */
export class GitHubPayloadError extends MiningError {
  constructor(
    readonly what: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`GitHub sent a payload chainsmith cannot read (${what}): ${detail}`, options);
  }
}
