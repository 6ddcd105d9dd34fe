import { inWindow, type DateWindow } from '../date-window';
import { ChainSchema, type Chain, type Edge, type PullRequestRecord, type RepoSource } from '../schemas';
import { buildChains, DEFAULT_MIN_CONFIDENCE, linkingEdges, type ChainOptions } from './chains/chains';
import { findCopies, redirect } from './links/copies';
import { codeHistoryEdges, windowMs } from './links/code-history';
import { dateCut } from './chains/date-cut';
import { prChangesTests } from './file-kind';
import { dropReason, filterPullRequests, type PrFilterOptions } from './chains/filters';
import { linkPullRequests, type LinkOptions } from './links/references';
import { restoreEdges } from './links/restores';
import { sharedFileEdges } from './links/shared-files';
import { chainCounts, countEdgesByKind, countLinksByKind, type MiningSummary } from './summary';
import { withStrength } from './links/strength';
import type { LinkJudge } from './links/link-judge/judge-links';
import type { PatchSource } from './landings/patch-source';

export interface PipelineOptions extends ChainOptions, PrFilterOptions, LinkOptions {
  /** Add the weak 'shares-files' edges between PRs that no text links. */
  sharedFiles?: boolean;
  /** A local clone of the repository: enables code-history (blame) edges. */
  clone?: string;
  /** Days before a PR's merge within which blamed lines link it to their PR (default DEFAULT_WINDOW_DAYS); 0 turns blame off. */
  blameWindowDays?: number;
  onBlameProgress?: (done: number, total: number) => void;
  /** Only PRs merged in it become stages; the others still link PRs, as in a mine without it. */
  window?: DateWindow;
  /**
   * An incremental mine: the edges an earlier mine found (kept, and not blamed again), and the PRs
   * new since then, the only ones whose code history is read (against the whole history).
   */
  since?: { edges: Edge[]; newPrs: ReadonlySet<number> };
  /**
   * Only PRs that change a test may be stages. This cuts chains rather than dropping them: links
   * between the tested PRs still hold, so a chain is built from them alone.
   */
  requireTests?: boolean;
  /** mine --judge-links: the model's verdict on candidate links (src/mining/links/link-judge/). */
  judge?: LinkJudge;
}

/** A mention backed by code history: more than either, less than words that say what the link is. */
const NAMED_AND_REWRITTEN = 0.7;

interface PipelineResult {
  chains: Chain[];
  edges: Edge[];
  /** The PRs a stage may be made of (eligible, and inside the window). */
  stageable: number[];
  summary: Omit<MiningSummary, 'repo' | 'source'>;
}

/** Keeps the strongest edge of each (from, to) pair across edge sources. */
function strongestPerPair(edges: Edge[]): Edge[] {
  const kept = new Map<string, Edge>();
  for (const edge of edges) {
    const key = `${edge.from}->${edge.to}`;
    const previous = kept.get(key);
    if (!previous || edge.confidence > previous.confidence) kept.set(key, edge);
  }
  return [...kept.values()].sort((a, b) => a.from - b.from || a.to - b.to);
}

/**
 * From mined PR records to validated chains: link every PR by what its texts say, keep the PRs a
 * stage can be made of, grow chains, then fetch patches for the chain members only.
 */
export async function recordsToChains(
  repo: RepoSource,
  prs: PullRequestRecord[],
  patches: PatchSource,
  opts: PipelineOptions = {},
): Promise<PipelineResult> {
  const { edges: textEdges, tally } = linkPullRequests(prs, opts);
  // Backports, cherry-picks, the same patch twice and branch syncs are nobody's work of their own.
  const copies = await findCopies(prs, textEdges, opts.clone);
  const { kept: filtered, dropped } = filterPullRequests(prs, opts);
  const eligible = filtered.filter((pr) => !copies.copyOf.has(pr.number) && !copies.syncs.has(pr.number));
  const syncs = filtered.filter((pr) => copies.syncs.has(pr.number)).length;
  // Only where there are some: most repositories land neither.
  const extraDrops = Object.fromEntries(
    Object.entries({ 'branch-sync': syncs, copy: filtered.length - eligible.length - syncs }).filter(([, n]) => n > 0),
  );
  // The graph (edges.jsonl, and so the chains left out by date) is the one a mine without the window builds.
  const { window } = opts;
  const inWindowed = window ? eligible.filter((pr) => inWindow(window, pr.mergedAt)) : eligible;
  const kept = opts.requireTests ? inWindowed.filter(prChangesTests) : inWindowed;
  const { since } = opts;
  // A PR without code is no stage but still fixes or follows up what another wrote (docs, build
  // files): its links are real, though chains are made of stages only. Bots' PRs are bookkeeping, and
  // an oversized PR is a large change of its own whose blame landed on no labelled real link (both as
  // the mine's own --keep-bots and --max-changed-lines say).
  const blameable = prs.filter(
    (pr) =>
      dropReason(pr, { ...opts, keepNoCode: true }) === undefined &&
      !copies.copyOf.has(pr.number) &&
      !copies.syncs.has(pr.number),
  );
  const examined = since ? blameable.filter((pr) => since.newPrs.has(pr.number)) : blameable;
  const mentioned = new Set(
    textEdges.filter((edge) => edge.kind === 'mentions').map((edge) => `${edge.from}->${edge.to}`),
  );
  const blame =
    opts.clone && opts.blameWindowDays !== 0
      ? await codeHistoryEdges(opts.clone, prs, examined, {
          windowDays: opts.blameWindowDays,
          onProgress: opts.onBlameProgress,
          named: mentioned,
          copies,
        })
      : [];
  // Words outrank code history for one pair: blame only adds pairs no text links. A PR that names
  // another and rewrites its lines builds on it, though either alone is only a hint.
  const blamed = new Map(blame.map((edge) => [`${edge.from}->${edge.to}`, edge]));
  const worded = textEdges.map((edge) => {
    const history = blamed.get(`${edge.from}->${edge.to}`);
    if (edge.kind !== 'mentions' || !history) return edge;
    return {
      ...edge,
      kind: 'follow-up' as const,
      confidence: Math.max(NAMED_AND_REWRITTEN, history.confidence),
      evidence: `${edge.evidence} (and ${history.evidence})`,
      strength: history.strength,
      strengthWhy: history.strengthWhy,
    };
  });
  const wordedPairs = new Set(textEdges.map((edge) => `${edge.from}->${edge.to}`));
  // A later PR that adds back what a revert took out re-applies the reverted work, whatever it says.
  const reverts = textEdges.filter(
    (edge) => edge.kind === 'reverts' && edge.confidence >= (opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE),
  );
  const restores =
    opts.clone && opts.blameWindowDays !== 0
      ? await restoreEdges(opts.clone, prs, reverts, windowMs(opts.blameWindowDays))
      : [];
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const mined = withStrength(
    strongestPerPair(
      redirect(
        [
          ...(since?.edges ?? []),
          ...worded,
          ...blame.filter((edge) => !wordedPairs.has(`${edge.from}->${edge.to}`)),
          ...restores,
          ...(opts.sharedFiles ? sharedFileEdges(eligible) : []),
        ],
        copies,
      ),
    ),
    byNumber,
  );
  const eligibleNumbers = new Set(eligible.map((pr) => pr.number));
  const judged = await opts.judge?.(mined, {
    repo: opts.repo ?? repo.name,
    records: byNumber,
    eligible: eligibleNumbers,
    patches,
    minConfidence: opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
  });
  const edges = judged?.edges ?? mined;
  // A chain that straddles the window is not emitted; its inside part is, where two or more linked PRs remain.
  const planned = buildChains(repo, kept, edges, opts);

  const members = new Map<number, PullRequestRecord>();
  for (const chain of planned) for (const pr of chain.prs) members.set(pr.number, pr);
  const patched = new Map((await patches([...members.values()])).map((pr) => [pr.number, pr]));
  const chains = planned.map((chain) =>
    ChainSchema.parse({ ...chain, prs: chain.prs.map((pr) => patched.get(pr.number)) }),
  );

  const stageable = new Set(kept.map((pr) => pr.number));
  const linked = new Set(
    linkingEdges(edges, opts)
      .filter((edge) => stageable.has(edge.from) && stageable.has(edge.to))
      .flatMap((edge) => [edge.from, edge.to]),
  );
  const { inChains, ...counted } = chainCounts(chains);
  return {
    chains,
    edges,
    stageable: kept.map((pr) => pr.number),
    summary: {
      prsSeen: prs.length,
      prsEligible: kept.length,
      dropped: {
        ...dropped,
        ...extraDrops,
        ...(window ? { 'outside-window': eligible.length - inWindowed.length } : {}),
        ...(opts.requireTests ? { 'no-tests': inWindowed.length - kept.length } : {}),
      },
      references: tally,
      edgesByKind: countEdgesByKind(edges),
      linksByKind: countLinksByKind(edges),
      funnel: { merged: prs.length, eligible: kept.length, linked: linked.size, inChains },
      ...counted,
      ...(judged ? { linkJudge: judged.tally } : {}),
      ...(window
        ? { dates: { ...window, ...dateCut(window, buildChains(repo, eligible, edges, opts), planned) } }
        : {}),
    },
  };
}
