import { ChainsmithError } from '../../../errors';
import { GitHubUnavailableError, MiningError, RateLimitError, RepositoryNotFoundError } from '../../errors';
import type { GitHubContext } from './context';

interface HttpFailure {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | undefined> };
}

function isHttpFailure(error: unknown): error is HttpFailure {
  return typeof (error as HttpFailure)?.status === 'number';
}

export function statusOf(error: unknown): number | undefined {
  return isHttpFailure(error) ? error.status : undefined;
}

/** GraphQL answers with errors (200 OK) come as GraphqlResponseError, carrying GitHub's error types. */
export function graphErrorTypes(error: unknown): string[] | undefined {
  const errors = (error as { name?: string; errors?: { type?: string }[] })?.errors;
  return (error as { name?: string })?.name === 'GraphqlResponseError' && Array.isArray(errors)
    ? errors.map((e) => e.type ?? '')
    : undefined;
}

/** When GitHub says its limit lets requests through again: the reset time, else now plus Retry-After. */
function retryAt(headers: Record<string, string | undefined> = {}): { at?: Date; text: string } {
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) {
    const at = new Date(reset * 1000);
    return { at, text: ` (it resets at ${at.toISOString()}, ${untilText(at)})` };
  }
  const after = Number(headers['retry-after']);
  if (!Number.isFinite(after) || after <= 0) return { text: '' };
  return { at: new Date(Date.now() + after * 1000), text: ` (GitHub asks to wait ${after}s)` };
}

function untilText(at: Date): string {
  const minutes = Math.max(0, Math.round((at.getTime() - Date.now()) / 60_000));
  return minutes <= 1 ? 'in a minute or less' : `in ${minutes} minutes`;
}

/**
 * Turns a failed request into an error that says what happened and what to do. Everything fetched
 * before is in the cache already, so every message can promise that a rerun picks up from there.
 */
export function explainRequestError(
  error: unknown,
  ctx: GitHubContext,
  what: string,
  scope: 'repository' | 'item' = 'repository',
): Error {
  if (error instanceof ChainsmithError) return error;
  const repo = `${ctx.owner}/${ctx.name}`;
  const resume = `what was fetched is cached in ${ctx.cache.dir}, so running the same command again continues from there`;
  if (graphErrorTypes(error)?.includes('RATE_LIMITED')) {
    const wait = retryAt((error as { headers?: Record<string, string | undefined> }).headers);
    return new RateLimitError(
      `GitHub's GraphQL rate limit ran out while fetching ${what}${wait.text}; ${resume} after the reset`,
      wait.at,
      { cause: error },
    );
  }
  if (!isHttpFailure(error)) return error instanceof Error ? error : new Error(String(error));
  const headers = error.response?.headers;
  if (error.status === 404 && scope === 'repository') {
    return new RepositoryNotFoundError(
      `GitHub has no repository ${repo} at ${ctx.baseUrl}, or the token cannot see it (404 on ${what})`,
      { cause: error },
    );
  }
  if (error.status === 401) {
    return new MiningError(`GitHub rejected the token (401 on ${what}): set a valid GITHUB_TOKEN`, { cause: error });
  }
  if (
    (error.status === 403 || error.status === 429) &&
    (headers?.['x-ratelimit-remaining'] === '0' || /rate limit/i.test(error.message))
  ) {
    const token = ctx.hasToken ? '' : '; without a token GitHub allows 60 requests an hour: set GITHUB_TOKEN for 5,000';
    const wait = retryAt(headers);
    return new RateLimitError(
      `GitHub's rate limit ran out while fetching ${what}${wait.text}; ${resume} after the reset${token}`,
      wait.at,
      { cause: error },
    );
  }
  if (error.status >= 500) {
    // No response at all (refused, reset, a port fetch will not use) comes as a 500 without one.
    const problem = error.response
      ? `GitHub kept answering ${error.status} for ${what}`
      : `cannot reach ${ctx.baseUrl} (${deepestCause(error)})`;
    return new GitHubUnavailableError(`${problem} after retrying; try again in a few minutes: ${resume}`, undefined, {
      cause: error,
    });
  }
  return new MiningError(`GitHub answered ${error.status} for ${what}: ${error.message}`, { cause: error });
}

/** What lies under a failed request: the innermost cause's code (ECONNREFUSED), else its message. */
function deepestCause(error: unknown): string {
  let e = error as { cause?: unknown; code?: string; message?: string };
  while (e.cause) e = e.cause as typeof e;
  return e.code ?? e.message ?? String(e);
}
