import { z } from 'zod';
import { InputError } from './errors';

/**
 * Merge times kept by `--merged-after` (inclusive) and `--merged-before` (exclusive), as ISO 8601 UTC.
 * Half-open, so that `--merged-before D` and `--merged-after D` split a history with nothing lost or doubled.
 */
export const DateWindowSchema = z.object({ mergedAfter: z.string().optional(), mergedBefore: z.string().optional() });
export type DateWindow = z.infer<typeof DateWindowSchema>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
// A time without its zone would mean the local zone of whoever runs the command: not reproducible.
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Option parser for a day (midnight UTC) or a time with its zone. */
export function parseDateOption(flag: string, value: string): string {
  const ms = DAY.test(value) || TIME.test(value) ? Date.parse(value) : NaN;
  // Date.parse rolls 2024-02-30 over into March; a day that does not exist is a typo.
  const day = value.slice(0, 10);
  if (Number.isNaN(ms) || new Date(Date.parse(day)).toISOString().slice(0, 10) !== day) {
    throw new InputError(
      `${flag} must be a day (2024-06-01) or a time with its zone (2024-06-01T12:00:00Z), got "${value}"`,
    );
  }
  return new Date(ms).toISOString();
}

/** The window the two options give, or undefined without either; an empty window is refused. */
export function dateWindow(mergedAfter?: string, mergedBefore?: string): DateWindow | undefined {
  if (!mergedAfter && !mergedBefore) return undefined;
  if (mergedAfter && mergedBefore && Date.parse(mergedAfter) >= Date.parse(mergedBefore)) {
    throw new InputError(
      `--merged-after ${mergedAfter} is not before --merged-before ${mergedBefore}: no PR can be merged in between`,
    );
  }
  return { ...(mergedAfter ? { mergedAfter } : {}), ...(mergedBefore ? { mergedBefore } : {}) };
}

/** Whether a merge time is inside the window; one that does not parse is never inside. */
export function inWindow(window: DateWindow, mergedAt: string): boolean {
  const at = Date.parse(mergedAt);
  if (Number.isNaN(at)) return false;
  return (
    !(window.mergedAfter && at < Date.parse(window.mergedAfter)) &&
    !(window.mergedBefore && at >= Date.parse(window.mergedBefore))
  );
}

/** "merged from 2024-06-01T00:00:00.000Z before 2024-07-01T00:00:00.000Z", for report lines. */
export function describeWindow(window: DateWindow): string {
  return [
    'merged',
    window.mergedAfter && `from ${window.mergedAfter}`,
    window.mergedBefore && `before ${window.mergedBefore}`,
  ]
    .filter(Boolean)
    .join(' ');
}
