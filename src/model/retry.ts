import { ChainsmithError } from '../errors';
import { ModelRateLimitedError } from './errors';

/**
 * The retry policy of a model client: a call that failed for a reason another try can help (timeout,
 * unreachable, 5xx, 429) is tried again, `attempts` times in all, backing off exponentially from
 * `baseDelayMs` or waiting what the endpoint's Retry-After asks, at most MAX_DELAY_MS. Workers' clients
 * try once (MODEL_TRIES_IN_ACTIVITY in src/retry-budget.ts): Temporal retries the activity, and two
 * layers would multiply. The link judge, whose failures stop its judging and are never retried by an
 * activity, tries config `model.retries` times. A permanent failure (a refusal) is retried by neither.
 */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

const MAX_DELAY_MS = 60_000;

export function retryPolicyFrom(model: { retries: number; retryBaseMs: number }): RetryPolicy {
  return { attempts: model.retries, baseDelayMs: model.retryBaseMs };
}

/** The wait before the next attempt after `err` ended attempt number `attempt`. */
function retryDelay(err: unknown, attempt: number, policy: RetryPolicy): number {
  const asked = err instanceof ModelRateLimitedError ? err.retryAfterMs : undefined;
  return Math.min(asked ?? policy.baseDelayMs * 2 ** (attempt - 1), MAX_DELAY_MS);
}

export async function withRetries<T>(fn: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const retryable = err instanceof ChainsmithError && !err.permanent;
      if (!retryable || attempt >= policy.attempts || signal?.aborted) throw err;
      await pause(retryDelay(err, attempt, policy), signal);
      if (signal?.aborted) throw err;
    }
  }
}

/** Waits `ms`, or less when `signal` aborts: a paused or cancelled caller does not sit out a backoff. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
