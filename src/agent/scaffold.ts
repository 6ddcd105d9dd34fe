import type { Sandbox } from '../container/sandbox';
import type { Message, ScaffoldKind } from '../schemas';
import type { AssistantMessage } from '../schemas';
import type { Redactor } from '../redact';
import type { TOOL_SPECS, ToolLimits } from './tools';

/** What one reply did: the messages that answer it, and how the loop counts it. */
export interface StepOutcome {
  /** Appended after the reply (the loop redacts them). */
  messages: Message[];
  /** Actions that ran: tool calls, or commands. */
  actions: number;
  submitted: boolean;
  /** The reply broke the protocol: counted against the format-error limit. */
  formatError: boolean;
}

/** An action in no protocol yet: what a scripted policy (gold replay) wants done. */
export type Action = { run: string; why: string } | { submit: string };

/**
 * How the agent talks to the sandbox: what a request declares, how a model's reply becomes actions
 * and their results become messages, and how earlier messages are shortened after a context cut.
 * The agent loop (loop.ts) is the same for every scaffold; only this differs.
 */
export interface Scaffold {
  readonly kind: ScaffoldKind;
  /** The system prompt, told what the stage's environment holds. */
  systemPrompt(environment: string): string;
  /** Declared in every request; absent when the protocol lives in the text. */
  readonly tools?: typeof TOOL_SPECS;
  /** Runs what the reply asks for. Commands lose the worker's secrets (`redactor.secretsIn`) before they run. */
  act(reply: AssistantMessage, sandbox: Sandbox, limits: ToolLimits, redactor: Redactor): Promise<StepOutcome>;
  /** A message before a context cut, as the model is shown it from then on. */
  shortened(m: Message): Message;
  /** The reply that asks for `action` in this protocol; `id` makes tool-call ids unique. */
  reply(action: Action, id: string): AssistantMessage;
}
