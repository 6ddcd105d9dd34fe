import OpenAI from 'openai';
import { TransientError } from '../errors';
import { ToolCallSchema, type Message } from '../schemas';
import type { AssistantMessage, Policy } from './policy';
import { TOOL_SPECS } from './tools';

/** The agent's model through any OpenAI-compatible endpoint. Retries belong to Temporal, not the SDK. */
export class ModelPolicy implements Policy {
  readonly kind = 'model' as const;

  constructor(
    private readonly client: OpenAI,
    readonly model: string,
  ) {}

  async next(messages: Message[]) {
    let response: OpenAI.Chat.Completions.ChatCompletion;
    try {
      response = await this.client.chat.completions.create({
        model: this.model,
        messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
        tools: TOOL_SPECS,
        tool_choice: 'auto',
      });
    } catch (cause) {
      throw new TransientError(`model request failed: ${(cause as Error).message}`, { cause });
    }
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
    const usage = { promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: response.usage?.completion_tokens ?? 0 };
    return { message, usage };
  }
}
