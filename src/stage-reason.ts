import { Redactor } from './redact';
import { StageError } from './errors';
import { REASON_LIMITS, type StageReason, type StageReasonKind } from './schemas';

/** The worker's secrets by value (its environment's secret-named variables) and anything shaped like a token. */
let redactor: Redactor | undefined;
/** Text about a stage as it is saved or shown: the worker's secrets and token-shaped text removed. */
export const redact = (text: string) => (redactor ??= Redactor.forWorker(process.env)).text(text);

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** The last lines of a command's output, redacted and bounded (REASON_LIMITS). */
export function outputTail(output: string, lines: number = REASON_LIMITS.tailLines): string {
  const last = redact(output.replace(ANSI, '')).trimEnd().split('\n').slice(-lines).join('\n');
  return last.length > REASON_LIMITS.tailChars ? `…${last.slice(-REASON_LIMITS.tailChars + 1)}` : last;
}

function clip(text: string, max: number): string {
  const one = redact(text).trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * A stage's reason, redacted and bounded: `output` is the failing command's whole output, of which
 * the last lines are kept.
 */
export function stageReason(
  kind: StageReasonKind,
  summary: string,
  failed?: { command?: string; exitCode?: number; output?: string },
): StageReason {
  return {
    kind,
    summary: clip(summary.split('\n')[0], REASON_LIMITS.summary),
    ...(failed?.command ? { command: clip(failed.command, REASON_LIMITS.command) } : {}),
    ...(failed?.exitCode !== undefined ? { exitCode: failed.exitCode } : {}),
    ...(failed?.output?.trim() ? { tail: outputTail(failed.output) } : {}),
  };
}

/**
 * The reason a failed stage's error carries, or one made from the error where its thrower gave none:
 * `kind` then, the first line of its message the summary, the rest its output.
 */
export function reasonOf(err: unknown, kind: StageReasonKind): StageReason {
  if (err instanceof StageError && err.reason) return err.reason;
  const message = err instanceof Error ? err.message : String(err);
  const [first, ...rest] = message.split('\n');
  return stageReason(kind, first, { output: rest.join('\n') });
}

/** A reason as `validate` prints it under a stage: the kind and summary, then the command, its exit code and its last lines, indented. */
export function formatReason(r: StageReason, indent = '    '): string {
  const lines = [`${r.kind}: ${r.summary}`];
  if (r.command)
    lines.push(
      `${indent}$ ${r.command.split('\n').join(' ⏎ ')}${r.exitCode !== undefined ? `  (exit ${r.exitCode})` : ''}`,
    );
  if (r.tail) lines.push(...r.tail.split('\n').map((l) => `${indent}| ${l}`));
  return lines.join('\n');
}
