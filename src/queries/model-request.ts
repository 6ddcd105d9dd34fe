import OpenAI from 'openai';
import { z } from 'zod';
import { withRetries } from '../agent/retry';
import { StageError, TransientError } from '../errors';

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/**
 * One chat completion asking for JSON that matches `schema` (strict json_schema response format), as
 * raw text: the caller validates it and decides whether to ask again. `what` names the caller in errors
 * ("the judge", "the query writer"), so a failure says which endpoint did what.
 */
export async function requestJson(
  client: OpenAI,
  model: string,
  messages: ChatMessage[],
  format: { name: string; schema: z.ZodType },
  what: string,
): Promise<string> {
  const responseFormat = {
    type: 'json_schema' as const,
    json_schema: { name: format.name, strict: true, schema: z.toJSONSchema(format.schema) as Record<string, unknown> },
  };
  // Transient faults are retried here, boundedly, like the agent's calls (src/agent/retry.ts): a query
  // or a verdict costs several calls, and one flaky answer should not fail the whole activity.
  const once = async () => {
    const started = Date.now();
    try {
      const response = await client.chat.completions.create({ model, messages, response_format: responseFormat });
      return response.choices?.[0]?.message?.content ?? '';
    } catch (cause) {
      throw endpointFailure(client, what, cause, Date.now() - started);
    }
  };
  return withRetries(once, { attempts: ATTEMPTS, baseDelayMs: BASE_DELAY_MS });
}

const ATTEMPTS = 4;
const BASE_DELAY_MS = 500;

/** Timeouts, dropped connections, 408/409/429 and 5xx are worth retrying; other refusals are not. */
export function endpointFailure(client: OpenAI, what: string, cause: unknown, elapsedMs = 0): Error {
  const where = `${what} at ${client.baseURL}`;
  // Not every fetch lets the SDK tell its own timeout from a dropped connection (an abort from another
  // realm arrives as a plain error), so a connection error at the timeout is taken for the timeout.
  const atTimeout = cause instanceof OpenAI.APIConnectionError && elapsedMs >= client.timeout;
  if (cause instanceof OpenAI.APIConnectionTimeoutError || atTimeout) {
    return new TransientError(`${where} did not answer within ${client.timeout} ms`, { cause });
  }
  if (cause instanceof OpenAI.APIConnectionError) {
    const code = (cause.cause as { code?: string } | undefined)?.code;
    return new TransientError(`${where} is unreachable (${code ?? cause.message})`, { cause });
  }
  if (cause instanceof OpenAI.APIError) {
    const status = cause.status ?? 0;
    const message = `${where} answered HTTP ${status}: ${cause.message}`;
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      const retryAfter = Number(cause.headers?.get?.('retry-after'));
      return Object.assign(new TransientError(message, { cause }), Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {});
    }
    return new StageError(message, { cause });
  }
  return cause instanceof Error ? cause : new Error(String(cause));
}

/** A reply checked against its schema: the value, or what was wrong with it in a sentence. */
export function parseJsonReply<T>(content: string, schema: z.ZodType<T>): { value: T } | { problem: string } {
  let json: unknown;
  try {
    // Endpoints without strict structured output often wrap the JSON in a Markdown fence.
    json = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { problem: `it is not valid JSON (${JSON.stringify(content.slice(0, 120))})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { value: parsed.data };
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  return { problem: `it does not match the schema (${issues.join('; ')})` };
}
