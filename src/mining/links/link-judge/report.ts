import type { LinkJudgeTally } from './tally';

/** Distinct reasons printed; the summary file keeps them all. */
const SHOWN_REASONS = 5;

/** The mine report's line (and the dropped pairs) for the link judge. */
export function describeJudging(tally: LinkJudgeTally): string {
  const tokens = tally.promptTokens + tally.completionTokens;
  const cost = tally.costUsd === undefined ? 'cost unknown: no price for the model' : `$${tally.costUsd.toFixed(4)}`;
  const lines = [
    `link judge (${tally.model}): ${tally.candidates} candidate links, ${tally.judged} judged (${tally.fromCache} from the cache), ${tally.dropped} dropped, ${tally.notJudged} not judged; ${tokens} tokens in ${tally.requests} requests (${cost})`,
    // Earlier PR first, as chains are printed.
    ...tally.droppedLinks.map((link) => `  dropped #${link.to} → #${link.from} (${link.kind}): ${link.reason}`),
    ...tally.notJudgedReasons.slice(0, SHOWN_REASONS).map((reason) => `  not judged: ${reason}`),
    ...(tally.notJudgedReasons.length > SHOWN_REASONS
      ? [`  (${tally.notJudgedReasons.length - SHOWN_REASONS} more reasons in the summary)`]
      : []),
  ];
  return lines.join('\n');
}
