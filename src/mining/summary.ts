import { z } from 'zod';
import { DateWindowSchema } from '../date-window';
import { EdgeKind, type Edge } from '../schemas';

const Count = z.number().int().nonnegative();

/** What a mine found, written next to the chains file and printed at the end. */
export const MiningSummarySchema = z.object({
  repo: z.string(),
  source: z.enum(['local', 'github']),
  /** Merged PRs read from the source. */
  prsSeen: Count,
  /** PRs left after the filters, the only ones chains may use. */
  prsEligible: Count,
  /** PRs kept out of chains, by reason. */
  dropped: z.record(z.string(), Count),
  /** What references pointed at; only references to mined PRs become edges. */
  references: z.object({ pr: Count, unmergedPr: Count, issue: Count, otherRepo: Count, unknownCommit: Count, self: Count }),
  edgesByKind: z.record(EdgeKind, Count),
  chains: Count,
  /** Keys are chain lengths. */
  chainsByLength: z.record(z.string(), Count),
  /** GitHub only: requests sent, and answers taken from the cache instead. */
  requests: Count.optional(),
  cacheHits: Count.optional(),
  /** PRs found but not recorded (a refs/pull/0, a record that does not fit), and why. */
  skipped: z.array(z.object({ number: z.number().int(), reason: z.string() })).optional(),
  /**
   * With --merged-after/--merged-before: the window, the chains a mine without it gives that reach
   * outside it (left out), and how many chains kept are the inside part of one of those.
   */
  dates: DateWindowSchema.extend({ chainsLeftOut: Count, chainsShortened: Count }).optional(),
  /**
   * A rerun into the same files: the last merge the earlier mine had seen, and what this one added
   * (PRs, edges, chains, of which grown from an earlier chain).
   */
  incremental: z.object({ since: z.string().optional(), newPrs: Count, newEdges: Count, chainsAdded: Count, chainsExtended: Count }).optional(),
  /** Local only: commits read from the history. */
  commits: Count.optional(),
});
export type MiningSummary = z.infer<typeof MiningSummarySchema>;

export function countEdgesByKind(edges: readonly Edge[]): Record<EdgeKind, number> {
  const counts = Object.fromEntries(EdgeKind.options.map((kind) => [kind, 0])) as Record<EdgeKind, number>;
  for (const edge of edges) counts[edge.kind] += 1;
  return counts;
}

export function countByLength(chains: readonly { prs: readonly unknown[] }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const chain of chains) counts[chain.prs.length] = (counts[chain.prs.length] ?? 0) + 1;
  return counts;
}
