import OpenAI from 'openai';
import { StageError, TransientError } from '../errors';
import { Redactor } from './redact';

/**
 * What a failed call to an OpenAI-compatible endpoint means, for the agent, the judge and the query
 * writer alike: timeouts, dropped connections, 408, 409, 429 and 5xx are worth another try
 * (TransientError, with the endpoint's Retry-After); any other refusal is permanent. `what` names the
 * caller, so the message says which endpoint did what.
 *
 * The SDK's error is never kept as `cause`: its request carries the API key, and errors reach logs and
 * workflow history. For the same reason the text loses the client's key, the worker's other secrets
 * (`redactor`) and anything shaped like a token, since endpoints quote a refused key back.
 */
export function modelFailure(client: OpenAI, what: string, cause: unknown, opts: { elapsedMs?: number; redactor?: Redactor } = {}): Error {
  const own = new Redactor([client.apiKey]);
  const clean = (text: string) => own.text(opts.redactor ? opts.redactor.text(text) : text);
  const where = `${what} at ${client.baseURL}`;
  // Not every fetch lets the SDK tell its own timeout from a dropped connection (an abort from another
  // realm arrives as a plain error), so a connection error at the timeout is taken for the timeout.
  const atTimeout = cause instanceof OpenAI.APIConnectionError && (opts.elapsedMs ?? 0) >= client.timeout;
  if (cause instanceof OpenAI.APIConnectionTimeoutError || atTimeout) {
    return new TransientError(`${where} did not answer within ${client.timeout} ms`);
  }
  if (cause instanceof OpenAI.APIConnectionError) {
    const code = (cause.cause as { code?: string } | undefined)?.code;
    return new TransientError(`${where} is unreachable (${code ?? clean(cause.message)})`);
  }
  if (cause instanceof OpenAI.APIError) {
    const status = cause.status ?? 0;
    const message = `${where} answered HTTP ${status}: ${clean(cause.message)}`;
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      const retryAfter = Number(cause.headers?.get?.('retry-after'));
      return Object.assign(new TransientError(message), Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {});
    }
    return new StageError(message);
  }
  return cause instanceof Error ? cause : new Error(String(cause));
}
