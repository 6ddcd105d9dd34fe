import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';
import { GITHUB_ERROR_RETRIES, GITHUB_RATE_LIMIT_RETRIES } from '../../../retry-budget';

const ThrottledOctokit = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof ThrottledOctokit>;

export const PUBLIC_API = 'https://api.github.com';

interface GitHubClientOptions {
  baseUrl?: string;
  token?: string;
  /**
   * How long GitHub's "second" is, in ms. Rate-limit resets, Retry-After and the retry back-off are
   * all counted in it: 1000 against GitHub; tests shrink it so that waiting is quick, not skipped.
   */
  secondMs?: number;
  /** A reset further away than this stops the mine instead of waiting (the cache keeps what was fetched). */
  maxWaitSeconds?: number;
  /** Retries of a request that failed with 5xx or a network error (default GITHUB_ERROR_RETRIES). */
  retries?: number;
  warn?: (message: string) => void;
  /** Called for every HTTP request that goes out, retries included. */
  onRequest?: (method: string, url: string) => void;
}

/**
 * An Octokit that is polite to GitHub: it waits out primary and secondary rate limits (within
 * `maxWaitSeconds`), retries 5xx with back-off, and sends GraphQL queries one at a time.
 */
export function createGitHubClient(opts: GitHubClientOptions = {}): GitHubClient {
  const second = opts.secondMs ?? 1000;
  const maxWait = opts.maxWaitSeconds ?? 15 * 60;
  const warn = opts.warn ?? (() => undefined);
  const onLimit =
    (what: string) =>
    (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
      // After GITHUB_RATE_LIMIT_RETRIES the request fails and the mine stops with a clear message.
      if (retryCount >= GITHUB_RATE_LIMIT_RETRIES || retryAfter > maxWait) return false;
      // Octokit hands over the route template ("/repos/{owner}/{repo}/pulls"); name the real path.
      const path = options.url.replace(/\{(\w+)\}/g, (_, key: string) =>
        String((options as unknown as Record<string, unknown>)[key] ?? key),
      );
      warn(`GitHub ${what} on ${options.method} ${path}: waiting ${retryAfter}s before retrying`);
      return true;
    };
  const fetchCounting: typeof fetch = (input, init) => {
    opts.onRequest?.(
      init?.method ?? 'GET',
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
    );
    return fetch(input, init);
  };
  return new ThrottledOctokit({
    baseUrl: opts.baseUrl ?? PUBLIC_API,
    auth: opts.token,
    userAgent: 'chainsmith-miner',
    request: { fetch: fetchCounting },
    // Octokit's own log would print every 4xx it sees; the miner reports what matters itself.
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    throttle: {
      onRateLimit: onLimit('rate limit'),
      onSecondaryRateLimit: onLimit('secondary rate limit'),
      retryAfterBaseValue: second,
      // The plugin spaces GraphQL queries a second apart; a shorter "second" shortens that too.
      ...(second !== 1000 ? { write: new Bottleneck.Group({ maxConcurrent: 1, minTime: second }) } : {}),
    },
    retry: {
      retries: opts.retries ?? GITHUB_ERROR_RETRIES,
      retryAfterBaseValue: second,
      // 403 and 429 belong to the throttling plugin, which reads the rate-limit headers.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
  });
}
