import type { Message, ToolCall } from '../schemas';
import { shorten, shortenArguments } from './context-window';
import { toolCall } from './policy';
import { systemPrompt } from './prompts';
import type { Scaffold, StepOutcome } from './scaffold';
import { executeTool, TOOL_SPECS, type ToolOutcome } from './tools';

const NO_TOOL_CALL = 'Your reply called no tool. Continue with a tool call, and call submit when the task is done.';

/** Function calling: the tools are declared in every request and each call gets a `tool` message back. */
export const TOOLS_SCAFFOLD: Scaffold = {
  kind: 'tools',
  systemPrompt,
  tools: TOOL_SPECS,

  async act(reply, sandbox, limits, redactor) {
    const calls = reply.tool_calls ?? [];
    if (!calls.length)
      return { messages: [{ role: 'user', content: NO_TOOL_CALL }], actions: 0, submitted: false, formatError: true };
    const outcome: StepOutcome = { messages: [], actions: 0, submitted: false, formatError: false };
    for (const call of calls) {
      // Every call gets its result, even after a submit: a call without one makes the row unusable.
      const result: ToolOutcome = outcome.submitted
        ? { output: 'ignored: already submitted', submitted: true, formatError: false }
        : await executeTool(sandbox, withoutSecrets(call, redactor.secretsIn.bind(redactor)), limits);
      outcome.messages.push({ role: 'tool', tool_call_id: call.id, content: result.output });
      outcome.actions += 1;
      outcome.submitted ||= result.submitted;
      outcome.formatError ||= result.formatError;
    }
    return outcome;
  },

  shortened(m: Message): Message {
    if (m.role === 'tool') return { ...m, content: shorten(m.content) };
    if (m.role === 'assistant' && m.tool_calls) {
      // A file written whole (create_file) can be as long as any output.
      return {
        ...m,
        tool_calls: m.tool_calls.map((c) => ({
          ...c,
          function: { ...c.function, arguments: shortenArguments(c.function.arguments) },
        })),
      };
    }
    return m;
  },

  reply(action, id) {
    const call =
      'run' in action
        ? toolCall(id, 'bash', { command: action.run })
        : toolCall(id, 'submit', { summary: action.submit });
    return { role: 'assistant', content: null, tool_calls: [call] };
  },
};

/** The call as it runs: the worker's own secrets never reach the container, even if the model writes them. */
function withoutSecrets(call: ToolCall, secretsIn: (text: string) => string): ToolCall {
  return { ...call, function: { ...call.function, arguments: secretsIn(call.function.arguments) } };
}
