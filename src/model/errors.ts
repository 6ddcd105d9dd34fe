import OpenAI from 'openai';
import { ChainsmithError } from '../errors';
import { Redactor } from '../redact';

/**
 * A call to the model endpoint failed. `endpoint` names the caller and where it called ("the judge at
 * http://…/v1"). Every subclass says whether another try can help (`permanent`); activities turn that
 * into Temporal's retryability in one place (src/activity-failure.ts).
 *
 * Messages never hold the API key: endpoints quote a refused key back, so the text is redacted, and
 * the SDK's own error is never kept as `cause` (its body can quote the key). What is kept as `cause`
 * is the network error under a dropped connection (a system error with a code: no secret in it).
 */
export abstract class ModelError extends ChainsmithError {}

/** No answer within the client's timeout: worth another try. */
export class ModelTimeoutError extends ModelError {
  override readonly permanent = false;
}

/** The endpoint cannot be reached, or answered 5xx, 408 or 409: worth another try. */
export class ModelUnavailableError extends ModelError {
  override readonly permanent = false;
  constructor(
    message: string,
    /** The HTTP status, when the endpoint answered at all. */
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** 429: worth another try, after `retryAfterMs` when the endpoint said how long (Retry-After). */
export class ModelRateLimitedError extends ModelError {
  override readonly permanent = false;
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Any other 4xx (a bad key, an unknown model, a request too large): asking again gets the same answer. */
export class ModelRefusedError extends ModelError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The endpoint answered, but not what was asked for (no valid verdict, no valid query) after every attempt. */
export class MalformedReplyError extends ModelError {}

/**
 * What a failed call to an OpenAI-compatible endpoint means: a timeout, an unreachable endpoint (or
 * 5xx, 408, 409), a rate limit (429, with the endpoint's Retry-After) or a refusal (any other status).
 * `clean` removes the worker's secrets from the endpoint's text; the client's own key always goes.
 */
export function classifyModelFailure(
  client: OpenAI,
  what: string,
  cause: unknown,
  opts: { elapsedMs?: number; redactor?: Redactor } = {},
): Error {
  const own = new Redactor([client.apiKey]);
  const clean = (text: string) => own.text(opts.redactor ? opts.redactor.text(text) : text);
  const where = `${what} at ${client.baseURL}`;
  // Not every fetch lets the SDK tell its own timeout from a dropped connection (an abort from another
  // realm arrives as a plain error), so a connection error at the timeout is taken for the timeout.
  const atTimeout = cause instanceof OpenAI.APIConnectionError && (opts.elapsedMs ?? 0) >= client.timeout;
  if (cause instanceof OpenAI.APIConnectionTimeoutError || atTimeout) {
    return new ModelTimeoutError(`${where} did not answer within ${client.timeout} ms`);
  }
  if (cause instanceof OpenAI.APIConnectionError) {
    const network = cause.cause as (Error & { code?: string }) | undefined;
    const code = network?.code ?? (network?.cause as { code?: string } | undefined)?.code;
    return new ModelUnavailableError(
      `${where} is unreachable (${code ?? clean(cause.message)})`,
      undefined,
      network ? { cause: network } : undefined,
    );
  }
  // Stopped by our own signal (a pause or cancel): not the endpoint's failure, and not to be retried.
  if (cause instanceof OpenAI.APIUserAbortError) return cause;
  if (cause instanceof OpenAI.APIError) {
    const status = cause.status ?? 0;
    const message = `${where} answered HTTP ${status}: ${clean(cause.message)}`;
    if (status === 429) {
      const seconds = Number(cause.headers?.get?.('retry-after') ?? NaN);
      return new ModelRateLimitedError(message, Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined);
    }
    if (status === 408 || status === 409 || status >= 500)
      return new ModelUnavailableError(message, status || undefined);
    return new ModelRefusedError(message, status);
  }
  return cause instanceof Error ? cause : new Error(String(cause));
}
