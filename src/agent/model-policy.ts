import type OpenAI from 'openai';
import type { ModelClient } from '../model/client';
import { NO_REDACTION, type Redactor } from '../redact';
import { ToolCallSchema, type AssistantMessage, type Message } from '../schemas';
import type { Policy, Turn } from './policy';

/** The agent's model through any OpenAI-compatible endpoint (src/model/client.ts retries and explains failures). */
export class ModelPolicy implements Policy {
  readonly kind = 'model' as const;

  constructor(
    private readonly client: ModelClient,
    readonly model: string,
    /** Error texts can quote the worker's secrets; they end up in workflow history. */
    private readonly redactor: Redactor = NO_REDACTION,
  ) {}

  async next(messages: Message[], { signal, scaffold, stage, round, step }: Turn) {
    const tools = scaffold.tools;
    const response = await this.client.complete(
      {
        model: this.model,
        messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        // The bash scaffold declares nothing: its protocol is in the text, as in mini-swe-agent.
        ...(tools ? { tools, tool_choice: 'auto' as const } : {}),
      },
      { marker: { caller: 'agent', stage, round, step }, signal, redactor: this.redactor },
    );
    const choice = response.choices?.[0]?.message;
    // Calls to tools the request did not declare are dropped: left in, they would have no results.
    const toolCalls = (tools ? (choice?.tool_calls ?? []) : [])
      .map((c) => ToolCallSchema.safeParse(c))
      .filter((r) => r.success)
      .map((r) => r.data!);
    const message: AssistantMessage = {
      role: 'assistant',
      content: choice?.content ?? null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    };
    const cached = response.usage?.prompt_tokens_details?.cached_tokens;
    const usage = {
      promptTokens: response.usage?.prompt_tokens ?? 0,
      completionTokens: response.usage?.completion_tokens ?? 0,
      ...(cached ? { cachedPromptTokens: cached } : {}),
    };
    return { message, usage };
  }
}
