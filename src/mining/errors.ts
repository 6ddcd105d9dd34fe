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

/** The GitHub API knows no such repository, or the token may not see it. */
export class RepositoryNotFoundError extends MiningError {}

/** GitHub's rate limit ran out and the reset is further away than we are willing to wait. */
export class RateLimitError extends MiningError {}

/** GitHub kept failing (5xx, network) after the retries. */
export class GitHubUnavailableError extends MiningError {}

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
