import type { AssistantMessage, Policy } from '../../src/agent/policy';
import { toolCall } from '../../src/agent/policy';
import type { Message, Usage } from '../../src/schemas';

export type ScriptedStep = { tool: string; args: Record<string, unknown> } | { content: string };

/**
 * An in-process policy that replays one step per call, counted from the last user message (so a new
 * task or a reviewer's feedback starts its script again), for sandbox tests that need no HTTP model.
 */
export class ScriptedPolicy implements Policy {
  readonly kind = 'model' as const;
  readonly model = 'scripted';
  calls = 0;

  constructor(
    private readonly script: (step: number, messages: Message[]) => ScriptedStep,
    private readonly usage: Usage = { promptTokens: 0, completionTokens: 0 },
  ) {}

  async next(messages: Message[]): Promise<{ message: AssistantMessage; usage: Usage }> {
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    const next = this.script(step, messages);
    this.calls += 1;
    const message: AssistantMessage =
      'content' in next ? { role: 'assistant', content: next.content } : { role: 'assistant', content: null, tool_calls: [toolCall(`call-${this.calls}`, next.tool, next.args)] };
    return { message, usage: this.usage };
  }
}
