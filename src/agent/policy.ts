import type { AssistantMessage, Message, PolicyKind, ToolCall, Usage } from '../schemas';
import type { Scaffold } from './scaffold';

/** What a policy is told besides the conversation. */
export interface Turn {
  signal?: AbortSignal;
  /** The chain stage and refinement round this conversation is at (0-based; absent outside a rollout). */
  stage?: number;
  round?: number;
  /** Steps this round took before this one. */
  step: number;
  /** The protocol the reply must speak (and, for a model, what the request declares). */
  scaffold: Scaffold;
}

/** Decides the agent's next message: a model behind the openai SDK, or a replay of the gold patch. */
export interface Policy {
  readonly kind: PolicyKind;
  readonly model?: string;
  next(messages: Message[], turn: Turn): Promise<{ message: AssistantMessage; usage: Usage }>;
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { id, type: 'function', function: { name, arguments: JSON.stringify(args) } };
}
