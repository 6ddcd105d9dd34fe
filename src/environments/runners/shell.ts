/** Small shell helpers shared by the runners that wrap a tool's run with a report of its outcomes. */

/** Where a runner keeps a tool's raw output while it prints a compact report (outside the repository). */
export const RUN_DIR = '"${TMPDIR:-/tmp}"';

/**
 * Lines marking the per-test report a runner prints after the tool's own output. The report comes
 * last, so that a capped output (head and tail kept) still holds it whole.
 */
export const reportStart = (what: string) => `----- chainsmith: ${what} -----`;
export const REPORT_END = '----- chainsmith: end of report -----';

/** The outcome of a test seen more than once (repeated names, reruns): the worst one counts. */
const RANK = { passed: 0, xpassed: 0, xfailed: 1, skipped: 1, failed: 2, error: 3 } as const;
export function worse<T extends keyof typeof RANK>(a: T | undefined, b: T): T {
  return a === undefined || RANK[b] >= RANK[a] ? b : a;
}
