import { dropReason, isBot } from '../../src/mining/chains/filters';
import { DEFAULT_WINDOW_DAYS } from '../../src/mining/links/code-history';
import { isSweep } from '../../src/mining/links/sweeps';
import type { PullRequestRecord } from '../../src/schemas';

/**
 * Why the miner made no edge at all for a labelled real link, as far as its gates say: a bot's or an
 * oversized PR is never blamed, lines older than the blame window are nobody's, a sweep is no endpoint.
 * Printed for tuning repositories only; what is left ("no gate") is blame that found no line the
 * earlier PR wrote among those the later one changes, or a text that names nothing.
 */
export function whyNoEdge(byNumber: ReadonlyMap<number, PullRequestRecord>, from: number, to: number): string {
  const [b, a] = [byNumber.get(from), byNumber.get(to)];
  if (!b || !a) return `not mined: #${!b ? from : to}`;
  const [later, earlier] = Date.parse(b.mergedAt) >= Date.parse(a.mergedAt) ? [b, a] : [a, b];
  const why: string[] = [];
  if (isBot(later) || dropReason(later) === 'oversized')
    why.push(`#${later.number} is ${isBot(later) ? "a bot's" : 'oversized'}, so never blamed`);
  const days = Math.round((Date.parse(later.mergedAt) - Date.parse(earlier.mergedAt)) / 86_400_000);
  if (days > DEFAULT_WINDOW_DAYS) why.push(`${days} days apart, beyond the blame window`);
  for (const pr of [later, earlier]) if (isSweep(pr)) why.push(`#${pr.number} is a sweep`);
  return why.length ? why.join('; ') : 'no gate: blame found none of its lines, or no text names it';
}
