import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChatMessage, ModelClient } from '../../../model/client';
import { MalformedReplyError } from '../../../model/errors';
import { LINK_JUDGE_ASKS } from '../../../retry-budget';
import { jsonFormat, parseJsonReply } from '../../../model/json-reply';
import { fillTemplate, promptTemplate } from '../../../model/prompt-files';
import { NO_REDACTION, type Redactor } from '../../../redact';
import type { Edge, PullRequest, Usage } from '../../../schemas';
import { describePr, TRIM } from './pr-text';

const RequestedVerdict = z.object({
  verdict: z.enum(['strong', 'weak', 'none']),
  reason: z.string().describe('One sentence naming the code or behaviour that decides it.'),
});
/** What a reply must be. The schema sent leaves out minLength: strict structured output does not take it. */
export const LinkVerdictSchema = RequestedVerdict.extend({ reason: z.string().trim().min(1) });
export type LinkVerdict = z.infer<typeof LinkVerdictSchema>;

/**
 * Names what the model is shown: the three templates, the reply schema and how PRs are trimmed. A
 * cached verdict is only reused under the same version, so any change to the prompt asks again.
 */
export function promptVersion(): string {
  const parts = [
    promptTemplate('link-judge', 'system'),
    promptTemplate('link-judge', 'pair'),
    promptTemplate('link-judge', 'malformed'),
    JSON.stringify(z.toJSONSchema(RequestedVerdict)),
    JSON.stringify(TRIM),
  ];
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
}

const usageOf = (response: {
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
}): Usage => ({
  promptTokens: response.usage?.prompt_tokens ?? 0,
  completionTokens: response.usage?.completion_tokens ?? 0,
  ...(response.usage?.prompt_tokens_details?.cached_tokens
    ? { cachedPromptTokens: response.usage.prompt_tokens_details.cached_tokens }
    : {}),
});

export const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  ...(a.cachedPromptTokens || b.cachedPromptTokens
    ? { cachedPromptTokens: (a.cachedPromptTokens ?? 0) + (b.cachedPromptTokens ?? 0) }
    : {}),
});

/** What one judged pair cost, even when no valid verdict came of it. */
export class NoVerdictError extends MalformedReplyError {
  constructor(
    message: string,
    readonly usage: Usage,
    readonly requests: number,
  ) {
    super(message);
  }
}

/**
 * The model's verdict on one candidate edge: both PRs shown (earlier first), a JSON reply checked
 * with zod, a reply that does not fit pointed out and asked again, three times in all. An endpoint
 * that fails throws the model layer's error (after its retries).
 */
export async function askVerdict(
  client: ModelClient,
  model: string,
  edge: Edge,
  earlier: PullRequest,
  later: PullRequest,
  redactor: Redactor = NO_REDACTION,
): Promise<{ verdict: LinkVerdict; usage: Usage; requests: number }> {
  const messages: ChatMessage[] = [
    { role: 'system', content: promptTemplate('link-judge', 'system') },
    {
      role: 'user',
      content: redactor.text(
        fillTemplate(promptTemplate('link-judge', 'pair'), {
          hint: edge.evidence.replace(/\.?$/, '.'),
          earlier: describePr(earlier),
          later: describePr(later),
        }),
      ),
    },
  ];
  let usage: Usage = { promptTokens: 0, completionTokens: 0 };
  const problems: string[] = [];
  for (let attempt = 1; attempt <= LINK_JUDGE_ASKS; attempt++) {
    const response = await client.complete(
      { model, messages, response_format: jsonFormat({ name: 'link_verdict', schema: RequestedVerdict }) },
      { marker: { caller: 'link-judge' } },
    );
    usage = addUsage(usage, usageOf(response));
    const content = response.choices?.[0]?.message?.content ?? '';
    const reply = parseJsonReply(content, LinkVerdictSchema);
    if ('value' in reply) return { verdict: reply.value, usage, requests: attempt };
    problems.push(`attempt ${attempt}: ${reply.problem}`);
    messages.push(
      { role: 'assistant', content },
      { role: 'user', content: fillTemplate(promptTemplate('link-judge', 'malformed'), { problem: reply.problem }) },
    );
  }
  throw new NoVerdictError(
    `the link judge returned no valid verdict in ${LINK_JUDGE_ASKS} attempts (${problems.join('; ')})`,
    usage,
    LINK_JUDGE_ASKS,
  );
}
