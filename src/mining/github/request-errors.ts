import { ChainsmithError } from '../../errors';
import { GitHubUnavailableError, MiningError, RateLimitError, RepositoryNotFoundError } from '../errors';
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
  return (error as { name?: string })?.name === 'GraphqlResponseError' && Array.isArray(errors) ? errors.map((e) => e.type ?? '') : undefined;
}

function resetTime(headers: Record<string, string | undefined> = {}): string {
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return ` (it resets at ${new Date(reset * 1000).toISOString()})`;
  const after = Number(headers['retry-after']);
  return Number.isFinite(after) && after > 0 ? ` (GitHub asks to wait ${after}s)` : '';
}

/**
 * Turns a failed request into an error that says what happened and what to do. Everything fetched
 * before is in the cache already, so every message can promise that a rerun picks up from there.
 */
export function explainRequestError(error: unknown, ctx: GitHubContext, what: string, scope: 'repository' | 'item' = 'repository'): Error {
  if (error instanceof ChainsmithError) return error;
  const repo = `${ctx.owner}/${ctx.name}`;
  const resume = `what was fetched is cached in ${ctx.cache.dir}, so running the same command again continues from there`;
  if (graphErrorTypes(error)?.includes('RATE_LIMITED')) {
    return new RateLimitError(`GitHub's GraphQL rate limit ran out while fetching ${what}; ${resume} after the reset`, { cause: error });
  }
  if (!isHttpFailure(error)) return error instanceof Error ? error : new Error(String(error));
  const headers = error.response?.headers;
  if (error.status === 404 && scope === 'repository') {
    return new RepositoryNotFoundError(`GitHub has no repository ${repo} at ${ctx.baseUrl}, or the token cannot see it (404 on ${what})`, { cause: error });
  }
  if (error.status === 401) {
    return new MiningError(`GitHub rejected the token (401 on ${what}): set a valid GITHUB_TOKEN`, { cause: error });
  }
  if ((error.status === 403 || error.status === 429) && (headers?.['x-ratelimit-remaining'] === '0' || /rate limit/i.test(error.message))) {
    const token = ctx.hasToken ? '' : '; without a token GitHub allows 60 requests an hour: set GITHUB_TOKEN for 5,000';
    return new RateLimitError(`GitHub's rate limit ran out while fetching ${what}${resetTime(headers)}; ${resume} after the reset${token}`, { cause: error });
  }
  if (error.status >= 500) {
    const cause = (error as { cause?: { cause?: { code?: string } } }).cause?.cause?.code;
    const problem = cause ? `cannot reach ${ctx.baseUrl} (${cause})` : `GitHub kept answering ${error.status} for ${what}`;
    return new GitHubUnavailableError(`${problem} after retrying; ${resume}`, { cause: error });
  }
  return new MiningError(`GitHub answered ${error.status} for ${what}: ${error.message}`, { cause: error });
}
