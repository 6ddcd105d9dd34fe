import { TransientError } from '../errors';

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  signal?: AbortSignal;
}

/**
 * Retries a model call that failed transiently (429, 5xx, timeout, dropped connection) a bounded number
 * of times with exponential backoff, honouring Retry-After. This sits inside one agent step, so a
 * flaky endpoint costs a retry of that call, not a rebuild of the sandbox.
 */
export async function withRetries<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof TransientError) || attempt >= opts.attempts || opts.signal?.aborted) throw err;
      const retryAfterMs = (err as TransientError & { retryAfterMs?: number }).retryAfterMs;
      const delay = Math.min(retryAfterMs ?? opts.baseDelayMs * 2 ** (attempt - 1), 60_000);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
