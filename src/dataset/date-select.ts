import { inWindow, type DateWindow } from '../date-window';
import type { ChainRun } from '../schemas';

/**
 * The runs whose every PR was merged in the window. A run recorded without merge dates cannot show it
 * is inside, so it is left out too: a held-out set must not take in what a model may have seen.
 */
export function selectByDate(
  runs: ChainRun[],
  window: DateWindow,
): { kept: ChainRun[]; outside: number; undated: number } {
  const kept: ChainRun[] = [];
  let outside = 0;
  let undated = 0;
  for (const run of runs) {
    if (run.mergedAt?.length !== run.prs.length) undated += 1;
    else if (run.mergedAt.every((at) => inWindow(window, at))) kept.push(run);
    else outside += 1;
  }
  return { kept, outside, undated };
}
