import OpenAI from 'openai';
import { ToolCallSchema, type Message } from '../schemas';
import type { AssistantMessage, Policy } from './policy';
import { modelFailure } from './model-errors';
import { NO_REDACTION, type Redactor } from './redact';
import { withRetries, type RetryOptions } from './retry';
import { TOOL_SPECS } from './tools';

/** The agent's model through any OpenAI-compatible endpoint. The SDK itself never retries. */
export class ModelPolicy implements Policy {
  readonly kind = 'model' as const;

  constructor(
    private readonly client: OpenAI,
    readonly model: string,
    private readonly retry: Omit<RetryOptions, 'signal'>,
    /** Error texts can quote the key the endpoint refused; they end up in workflow history. */
    private readonly redactor: Redactor = NO_REDACTION,
  ) {}

  async next(messages: Message[], signal?: AbortSignal) {
    const response = await withRetries(() => this.request(messages, signal), { ...this.retry, signal });
    const choice = response.choices?.[0]?.message;
    const toolCalls = (choice?.tool_calls ?? [])
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

  private async request(messages: Message[], outer?: AbortSignal) {
    // One controller per request, linked to the activity's signal and unlinked after: passing the
    // long-lived signal itself would gather one listener per step.
    const controller = new AbortController();
    const abort = () => controller.abort();
    outer?.addEventListener('abort', abort, { once: true });
    const signal = controller.signal;
    const started = Date.now();
    try {
      return await this.client.chat.completions.create(
        {
          model: this.model,
          messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
          tools: TOOL_SPECS,
          tool_choice: 'auto',
        },
        { signal },
      );
    } catch (cause) {
      throw modelFailure(this.client, 'the model', cause, { elapsedMs: Date.now() - started, redactor: this.redactor });
    } finally {
      outer?.removeEventListener('abort', abort);
    }
  }
}
