import type { Sandbox } from '../container/sandbox';
import type { ExitReason, Message, Trajectory, Usage } from '../schemas';
import { limitExit, type Budget } from './budget';
import { cutNote, cutPoint, modelView, needsCut } from './context-window';
import type { Policy } from './policy';
import { costOf } from './pricing';
import { NO_REDACTION, type Redactor } from '../redact';
import { scaffoldFor } from './scaffolds';
import { journaled } from '../work-journal';
import type { ToolLimits } from './tools';

export interface AgentLimits extends ToolLimits, Budget {
  maxSteps: number;
}

/** Thrown between steps when the run was asked to stop (pause or cancel); the last step is saved. */
export class AgentStopped extends Error {}

const MAX_FORMAT_ERRORS = 3;

/**
 * The agent loop: ask the policy, run what its reply asks for, append everything to one conversation,
 * save after every step. The trajectory's scaffold (tool calls, or one bash block per reply) decides
 * how a reply becomes actions and their results become messages; the loop is the same for both. The
 * conversation is append-only so each request starts with the previous one's tokens (a context cut,
 * rare and announced, is the one exception: see context-window.ts). Step k is saved before step k+1's
 * model call starts, so a crash at any point redoes at most one step: the step under way. (Overlapping
 * the save with the next model call saved a few milliseconds a step, but a crash during that call with
 * the save still in flight redid two.) Everything appended goes through the
 * redactor first, so the worker's secrets reach neither the container, the model nor the saved run.
 */
export async function runAgent(opts: {
  policy: Policy;
  /** Awaited only once the first reply is in: a sandbox still opening opens while the first model call is in flight. */
  sandbox: Sandbox | Promise<Sandbox>;
  trajectory: Trajectory;
  limits: AgentLimits;
  /** Steps this round already took (a resumed round). */
  stepsThisRound: number;
  onStep: (t: Trajectory, stepsThisRound: number) => Promise<void>;
  signal?: AbortSignal;
  redactor?: Redactor;
  /** Where in the chain this round is: told to the policy with every step. */
  at?: { stage: number; round: number };
}): Promise<{ trajectory: Trajectory; exitReason: ExitReason; stepsThisRound: number }> {
  const { policy, sandbox, limits, signal } = opts;
  const redact = opts.redactor ?? NO_REDACTION;
  const t = structuredClone(opts.trajectory);
  const scaffold = scaffoldFor(t.scaffold);
  let steps = opts.stepsThisRound;
  // A round resumed after its last step was saved: the agent had already finished.
  if (steps > 0 && t.exitReason) return { trajectory: t, exitReason: t.exitReason, stepsThisRound: steps };
  const early = limitExit(t, steps, limits);
  if (early) return { trajectory: { ...t, exitReason: early }, exitReason: early, stepsThisRound: steps };

  let formatErrors = 0;
  for (;;) {
    if (signal?.aborted) throw new AgentStopped('stopped between steps');
    const started = Date.now();
    const view = modelView(t.messages, t.contextCuts, scaffold.shortened);
    const { message, usage } = await policy.next(view, { signal, step: steps, scaffold, ...opts.at });
    t.messages.push(redact.message(message));
    addUsage(t, usage, limits);
    // The same reply at the same point of the conversation is the same action: run again after a kill, it is time redone.
    const box = await sandbox;
    const { messages, actions, submitted, formatError } = await journaled(
      'action',
      JSON.stringify([view.length, message]),
      () => scaffold.act(message, box, limits, redact),
    );
    t.messages.push(...messages.map((m) => redact.message(m)));
    t.toolCalls += actions;
    steps += 1;
    t.steps += 1;
    t.elapsedMs = (t.elapsedMs ?? 0) + (Date.now() - started);
    formatErrors = formatError ? formatErrors + 1 : 0;
    const exit: ExitReason | undefined = submitted
      ? 'submitted'
      : formatErrors >= MAX_FORMAT_ERRORS
        ? 'format_errors'
        : limitExit(t, steps, limits);
    t.exitReason = exit;
    if (!exit) maybeCut(t, usage.promptTokens, limits.contextTokens);
    await opts.onStep(t, steps);
    if (exit) return { trajectory: t, exitReason: exit, stepsThisRound: steps };
  }
}

function addUsage(t: Trajectory, usage: Usage, limits: Budget): void {
  t.usage.promptTokens += usage.promptTokens;
  t.usage.completionTokens += usage.completionTokens;
  if (usage.cachedPromptTokens)
    t.usage.cachedPromptTokens = (t.usage.cachedPromptTokens ?? 0) + usage.cachedPromptTokens;
  const cost = costOf(usage, limits.price);
  if (cost !== undefined) t.costUsd = (t.costUsd ?? 0) + cost;
}

/** Records a context cut when the last prompt came close to the budget and there is something left to shorten. */
function maybeCut(t: Trajectory, promptTokens: number, contextTokens: number | undefined): void {
  if (!needsCut(promptTokens, contextTokens)) return;
  const atMessage = cutPoint(t.messages);
  const last = t.contextCuts?.[t.contextCuts.length - 1];
  if (atMessage <= (last?.atMessage ?? 0)) return;
  t.contextCuts = [...(t.contextCuts ?? []), { atMessage, step: t.steps, promptTokens }];
  const note: Message = { role: 'user', content: cutNote(t.steps) };
  t.messages.push(note);
}
