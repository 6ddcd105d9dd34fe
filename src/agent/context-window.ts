import type { ContextCut, Message } from '../schemas';

/** A cut is made when the last prompt passed this share of the context budget. */
const CUT_AT = 0.9;
/** The latest steps stay whole after a cut: the model is usually working with them. */
const KEEP_STEPS = 4;
/** Tool outputs and long tool-call arguments before a cut keep this many characters from each end. */
const KEEP_CHARS = 150;

export function cutNote(step: number): string {
  return (
    `Context note: this conversation outgrew the context budget at step ${step}. ` +
    'From here on, the outputs of your earlier tool calls are shown shortened; the files themselves are unchanged. ' +
    'Run a command again if you need its full output.'
  );
}

/**
 * Whether to cut now: only when the last request came close to the budget, so cuts are rare (each
 * one costs the provider's prompt cache once).
 */
export function needsCut(lastPromptTokens: number, contextTokens: number | undefined): boolean {
  return contextTokens !== undefined && lastPromptTokens >= contextTokens * CUT_AT;
}

/** Where a cut made now starts: everything before the last KEEP_STEPS assistant turns. */
export function cutPoint(messages: Message[]): number {
  let seen = 0;
  for (let i = messages.length - 1; i > 0; i--) {
    if (messages[i].role === 'assistant' && ++seen === KEEP_STEPS) return i;
  }
  return 0;
}

/**
 * What the model is shown: the conversation with tool outputs before the latest cut shortened. The
 * saved conversation stays whole and append-only; the view is recomputed from it and the recorded cuts,
 * so a resumed run shows the model exactly what it saw before.
 */
export function modelView(messages: Message[], cuts: ContextCut[] | undefined): Message[] {
  const cut = cuts?.[cuts.length - 1];
  if (!cut) return messages;
  return messages.map((m, i) => {
    if (i >= cut.atMessage) return m;
    if (m.role === 'tool') return { ...m, content: shorten(m.content) };
    if (m.role === 'assistant' && m.tool_calls) {
      // A file written whole (create_file) can be as long as any output.
      return { ...m, tool_calls: m.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: shortenArguments(c.function.arguments) } })) };
    }
    return m;
  });
}

function shorten(text: string): string {
  if (text.length <= 2 * KEEP_CHARS + 100) return text;
  const cut = text.length - 2 * KEEP_CHARS;
  return `${text.slice(0, KEEP_CHARS)}\n[... ${cut} characters of this earlier output are left out after a context cut ...]\n${text.slice(-KEEP_CHARS)}`;
}

/** Long string values shortened, as JSON again; arguments that are not JSON stay as they are. */
function shortenArguments(json: string): string {
  if (json.length <= 2 * KEEP_CHARS + 100) return json;
  try {
    const args = JSON.parse(json) as Record<string, unknown>;
    return JSON.stringify(Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? shorten(v) : v])));
  } catch {
    return json;
  }
}
