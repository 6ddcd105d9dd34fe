import type { Message, PolicyKind, ToolCall, Usage } from '../schemas';

export type AssistantMessage = Extract<Message, { role: 'assistant' }>;

/** Decides the agent's next message: a model behind the openai SDK, or a replay of the gold patch. */
export interface Policy {
  readonly kind: PolicyKind;
  readonly model?: string;
  next(messages: Message[], signal?: AbortSignal): Promise<{ message: AssistantMessage; usage: Usage }>;
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
