import OpenAI from 'openai';
import { ToolCallSchema, type Message } from '../schemas';
import type { AssistantMessage, Policy, Turn } from './policy';
import type { Scaffold } from './scaffold';
import { modelFailure } from './model-errors';
import { NO_REDACTION, type Redactor } from './redact';
import { withRetries, type RetryOptions } from './retry';

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

  async next(messages: Message[], { signal, scaffold }: Turn) {
    const tools = scaffold.tools;
    const response = await withRetries(() => this.request(messages, tools, signal), { ...this.retry, signal });
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

  private async request(messages: Message[], tools: Scaffold['tools'], outer?: AbortSignal) {
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
          // The bash scaffold declares nothing: its protocol is in the text, as in mini-swe-agent.
          ...(tools ? { tools, tool_choice: 'auto' as const } : {}),
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
