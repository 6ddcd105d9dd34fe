import type { DockerSandbox } from '../sandbox/docker-sandbox';
import type { ExitReason, Trajectory } from '../schemas';
import type { Policy } from './policy';
import { executeTool, type ToolLimits, type ToolOutcome } from './tools';

export interface AgentLimits extends ToolLimits {
  maxSteps: number;
}

/** Thrown between steps when the run was asked to stop (pause or cancel); the last step is saved. */
export class AgentStopped extends Error {}

const MAX_FORMAT_ERRORS = 3;
const NO_TOOL_CALL = 'Your reply called no tool. Continue with a tool call, and call submit when the task is done.';

/**
 * The agent loop: ask the policy, run its tool calls, append everything to one conversation, save after
 * every step. The conversation is append-only so each request starts with the previous one's tokens.
 * Saving step k overlaps with the model call of step k+1 (which has no side effects) and is awaited
 * before step k+1's tools run: a crash at any point redoes at most one step.
 */
export async function runAgent(opts: {
  policy: Policy;
  sandbox: DockerSandbox;
  trajectory: Trajectory;
  limits: AgentLimits;
  /** Steps this round already took (a resumed round). */
  stepsThisRound: number;
  onStep: (t: Trajectory, stepsThisRound: number) => Promise<void>;
  signal?: AbortSignal;
}): Promise<{ trajectory: Trajectory; exitReason: ExitReason; stepsThisRound: number }> {
  const { policy, sandbox, limits, signal } = opts;
  const t = structuredClone(opts.trajectory);
  let steps = opts.stepsThisRound;
  let formatErrors = 0;
  let saving: Promise<void> = Promise.resolve();
  try {
    while (steps < limits.maxSteps) {
      if (signal?.aborted) throw new AgentStopped('stopped between steps');
      const { message, usage } = await policy.next(t.messages, signal);
      await saving;
      t.messages.push(message);
      t.usage.promptTokens += usage.promptTokens;
      t.usage.completionTokens += usage.completionTokens;
      let submitted = false;
      let stepFormatError = !message.tool_calls?.length;
      if (stepFormatError) t.messages.push({ role: 'user', content: NO_TOOL_CALL });
      for (const call of message.tool_calls ?? []) {
        const outcome: ToolOutcome = submitted
          ? { output: 'ignored: already submitted', submitted: true, formatError: false }
          : await executeTool(sandbox, call, limits);
        t.messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output });
        t.toolCalls += 1;
        submitted ||= outcome.submitted;
        stepFormatError ||= outcome.formatError;
      }
      steps += 1;
      t.steps += 1;
      formatErrors = stepFormatError ? formatErrors + 1 : 0;
      const exit: ExitReason | undefined = submitted ? 'submitted' : formatErrors >= MAX_FORMAT_ERRORS ? 'format_errors' : undefined;
      t.exitReason = exit;
      saving = opts.onStep(t, steps); // t is not touched again until this save has finished
      // A save that fails while the next model call runs is rethrown by `await saving`; without this
      // handler Node would call it unhandled first and end the worker process.
      saving.catch(() => undefined);
      if (exit) return { trajectory: t, exitReason: exit, stepsThisRound: steps };
    }
    t.exitReason = 'step_limit';
    return { trajectory: t, exitReason: 'step_limit', stepsThisRound: steps };
  } finally {
    await saving;
  }
}
