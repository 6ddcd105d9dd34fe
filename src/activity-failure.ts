import { ApplicationFailure } from '@temporalio/common';
import { ChainsmithError } from './errors';

/**
 * How an error chainsmith raised on purpose leaves an activity, in one place:
 * - permanent (input, stage, git, a refused or malformed model call): a non-retryable
 *   ApplicationFailure whose type is the error's class name (`ModelRefusedError`, `StageError`, …);
 * - retryable (model timeout, unavailable, rate-limited; Docker and disk hiccups): a retryable one
 *   with the same type, so Temporal's activity retry policy (workflows/activity-table.ts) tries again; a
 *   service that said how long to wait (a model's Retry-After, GitHub's rate-limit reset) sets that as
 *   the next retry's delay (its error's `retryAfterMs`).
 * The error's `cause` goes along where it has one (only causes that carry no secret are ever kept).
 * Anything else (a bug, a library's own error) is left as it is: Temporal retries it by default.
 */
export function toActivityFailure(err: unknown): unknown {
  if (!(err instanceof ChainsmithError)) return err;
  const cause = err.cause instanceof Error ? err.cause : undefined;
  const retryAfterMs =
    'retryAfterMs' in err && typeof err.retryAfterMs === 'number' && err.retryAfterMs > 0
      ? err.retryAfterMs
      : undefined;
  return ApplicationFailure.create({
    message: err.message,
    type: err.name,
    nonRetryable: err.permanent,
    ...(cause ? { cause } : {}),
    ...(retryAfterMs ? { nextRetryDelay: retryAfterMs } : {}),
  });
}
