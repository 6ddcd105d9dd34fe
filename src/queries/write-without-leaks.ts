import type { z } from 'zod';
import type { ChatMessage, ModelClient } from '../model/client';
import { MalformedReplyError } from '../model/errors';
import { parseJsonReply } from '../model/json-reply';
import type { LeakReport } from '../schemas';
import { checkLeak, describeFindings } from './leak-check';
import type { PatchSecrets } from './patch-secrets';
import { prompt } from '../model/prompt-files';

export interface WriteRequest<T> {
  client: ModelClient;
  model: string;
  /** The stage this piece is for (0-based); absent for the chain overview. Sent as the call's marker. */
  stage?: number;
  /** System prompt and the task: the conversation the writer starts from. */
  messages: ChatMessage[];
  format: { name: string; schema: z.ZodType<T> };
  /** The text the reader will see, made from a valid reply. */
  render: (value: T) => string;
  secrets: PatchSecrets;
  leakLimit: number;
  /** Stops the writer's calls (an activity's cancellation). */
  signal?: AbortSignal;
  /** Replies asked for in all, malformed or leaking ones included. */
  maxAttempts: number;
  /** Names the piece in errors, e.g. "the query for stage 2 (PR #4)". */
  label: string;
}

export interface Written<T> {
  value: T;
  text: string;
  leak: LeakReport;
}

/**
 * Asks for a structured text, checks it against the gold patch and, while it leaks, asks again in the
 * same conversation with the findings as feedback. Returns the first text within the leak limit, or
 * after the last attempt the least leaky one with its (failing) report. A reply that is not the JSON
 * asked for is pointed out and asked for again; when no attempt gave a valid reply the stage fails.
 */
export async function writeWithoutLeaks<T>(req: WriteRequest<T>): Promise<Written<T>> {
  const messages = [...req.messages];
  const problems: string[] = [];
  let best: Written<T> | undefined;
  let firstScore: number | undefined;
  for (let attempt = 1; attempt <= req.maxAttempts; attempt++) {
    const content = await req.client.completeJson(
      req.model,
      messages,
      req.format,
      { caller: 'query-writer', stage: req.stage },
      req.signal,
    );
    messages.push({ role: 'assistant', content });
    const reply = parseJsonReply(content, req.format.schema);
    if ('problem' in reply) {
      problems.push(`attempt ${attempt}: ${reply.problem}`);
      messages.push({ role: 'user', content: prompt('queries', 'malformed', { problem: reply.problem }) });
      continue;
    }
    const text = req.render(reply.value);
    const { score, findings } = checkLeak(text, req.secrets);
    firstScore ??= score;
    const passed = score <= req.leakLimit;
    const leak: LeakReport = { score, findings, limit: req.leakLimit, passed, attempts: attempt, firstScore };
    if (!best || score < best.leak.score) best = { value: reply.value, text, leak };
    if (passed) return best;
    messages.push({
      role: 'user',
      content: prompt('queries', 'leak-feedback', { findings: describeFindings(findings) }),
    });
  }
  if (!best) {
    throw new MalformedReplyError(
      `the query writer gave no valid reply for ${req.label} in ${req.maxAttempts} attempts (${problems.join('; ')})`,
    );
  }
  // Every attempt leaked: keep the least leaky, and say how many attempts were spent on it.
  return { ...best, leak: { ...best.leak, attempts: req.maxAttempts, firstScore: firstScore! } };
}
