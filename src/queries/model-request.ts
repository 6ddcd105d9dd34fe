import OpenAI from 'openai';
import { z } from 'zod';
import { modelFailure } from '../agent/model-errors';
import { withRetries } from '../agent/retry';

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
      throw modelFailure(client, what, cause, { elapsedMs: Date.now() - started });
    }
  };
  return withRetries(once, { attempts: ATTEMPTS, baseDelayMs: BASE_DELAY_MS });
}

const ATTEMPTS = 4;
const BASE_DELAY_MS = 500;

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
