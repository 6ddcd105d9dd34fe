import { z } from 'zod';
import { DateWindowSchema } from '../date-window';
import { prChangesTests } from './file-kind';
import { LinkJudgeTallySchema } from './links/link-judge/tally';
import { EdgeKind, type Edge, type PullRequestRecord, type Strength } from '../schemas';

const Count = z.number().int().nonnegative();
const ByStrength = z.object({ strong: Count, weak: Count });

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
  references: z.object({
    pr: Count,
    unmergedPr: Count,
    issue: Count,
    otherRepo: Count,
    unknownCommit: Count,
    self: Count,
  }),
  edgesByKind: z.record(EdgeKind, Count),
  chains: Count,
  /** Keys are chain lengths. */
  chainsByLength: z.record(z.string(), Count),
  // The fields down to chainsWithTests came with link strengths; summaries written before lack them.
  /** How many PRs each step keeps: merged (read), eligible (may be a stage), linked (a link chains use joins it to another eligible PR), in chains. */
  funnel: z.object({ merged: Count, eligible: Count, linked: Count, inChains: Count }).optional(),
  /** Edges of the edges file by kind and strength. */
  linksByKind: z.record(EdgeKind, ByStrength).optional(),
  chainsByStrength: ByStrength.optional(),
  /** Keys are chain lengths. */
  chainsByLengthAndStrength: z.record(z.string(), ByStrength).optional(),
  /** Chains whose every stage changes a test (all of them under --require-tests). */
  chainsWithTests: Count.optional(),
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
  incremental: z
    .object({ since: z.string().optional(), newPrs: Count, newEdges: Count, chainsAdded: Count, chainsExtended: Count })
    .optional(),
  /** With --judge-links and a model: candidates judged, dropped and not judged, tokens and cost. */
  linkJudge: LinkJudgeTallySchema.optional(),
  /** Local only: commits read from the history. */
  commits: Count.optional(),
});
export type MiningSummary = z.infer<typeof MiningSummarySchema>;

export function countEdgesByKind(edges: readonly Edge[]): Record<EdgeKind, number> {
  const counts = Object.fromEntries(EdgeKind.options.map((kind) => [kind, 0])) as Record<EdgeKind, number>;
  for (const edge of edges) counts[edge.kind] += 1;
  return counts;
}

function countByLength(chains: readonly { prs: readonly unknown[] }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const chain of chains) counts[chain.prs.length] = (counts[chain.prs.length] ?? 0) + 1;
  return counts;
}

type ChainShape = { prs: readonly Pick<PullRequestRecord, 'number' | 'files' | 'changesTests'>[]; strength?: Strength };

export function countLinksByKind(edges: readonly Edge[]): Record<EdgeKind, { strong: number; weak: number }> {
  const counts = Object.fromEntries(EdgeKind.options.map((kind) => [kind, { strong: 0, weak: 0 }])) as Record<
    EdgeKind,
    { strong: number; weak: number }
  >;
  for (const edge of edges) counts[edge.kind][edge.strength ?? 'strong'] += 1;
  return counts;
}

/** What the summary says of a set of chains: lengths, strengths, tested ones, and the PRs they hold. */
export function chainCounts(chains: readonly ChainShape[]) {
  const chainsByStrength = { strong: 0, weak: 0 };
  const chainsByLengthAndStrength: Record<string, { strong: number; weak: number }> = {};
  for (const chain of chains) {
    const strength = chain.strength ?? 'strong';
    chainsByStrength[strength] += 1;
    const row = (chainsByLengthAndStrength[chain.prs.length] ??= { strong: 0, weak: 0 });
    row[strength] += 1;
  }
  return {
    chains: chains.length,
    chainsByLength: countByLength(chains),
    chainsByStrength,
    chainsByLengthAndStrength,
    chainsWithTests: chains.filter((chain) => chain.prs.every(prChangesTests)).length,
    inChains: new Set(chains.flatMap((chain) => chain.prs.map((pr) => pr.number))).size,
  };
}
