import type { ContextCut, Message } from '../schemas';

/** A cut is made when the last prompt passed this share of the context budget. */
const CUT_AT = 0.9;
/** The latest steps stay whole after a cut: the model is usually working with them. */
const KEEP_STEPS = 4;
/** Outputs and long written contents before a cut keep this many characters from each end. */
const KEEP_CHARS = 150;

export function cutNote(step: number): string {
  return (
    `Context note: this conversation outgrew the context budget at step ${step}. ` +
    'From here on, the outputs of your earlier steps are shown shortened; the files themselves are unchanged. ' +
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
 * What the model is shown: the conversation with the messages before the latest cut shortened the
 * scaffold's way (`shortened`: tool results, or command outputs). The saved conversation stays whole
 * and append-only; the view is recomputed from it and the recorded cuts, so a resumed run shows the
 * model exactly what it saw before.
 */
export function modelView(
  messages: Message[],
  cuts: ContextCut[] | undefined,
  shortened: (m: Message) => Message,
): Message[] {
  const cut = cuts?.[cuts.length - 1];
  if (!cut) return messages;
  return messages.map((m, i) => (i >= cut.atMessage ? m : shortened(m)));
}

/** The text with its middle left out when long: the beginning and end usually say the most. */
export function shorten(text: string): string {
  if (text.length <= 2 * KEEP_CHARS + 100) return text;
  const cut = text.length - 2 * KEEP_CHARS;
  return `${text.slice(0, KEEP_CHARS)}\n[... ${cut} characters of this earlier output are left out after a context cut ...]\n${text.slice(-KEEP_CHARS)}`;
}

/** Long string values shortened, as JSON again; arguments that are not JSON stay as they are. */
export function shortenArguments(json: string): string {
  if (json.length <= 2 * KEEP_CHARS + 100) return json;
  try {
    const args = JSON.parse(json) as Record<string, unknown>;
    return JSON.stringify(
      Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? shorten(v) : v])),
    );
  } catch {
    return json;
  }
}
