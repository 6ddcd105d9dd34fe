import type { Chain, Edge, PullRequestRecord } from '../../schemas';
import type { PatchSource } from '../landings/patch-source';
import type { MiningSummary } from '../summary';
import type { MineCursor } from './cursor';

/** What one mine into files found: the whole graph and chains, and what this run added to them. */
export interface MineResult {
  chains: Chain[];
  edges: Edge[];
  records: PullRequestRecord[];
  summary: MiningSummary;
  /** Kept for callers that only print counts. */
  prs: number;
  /** Chains this mine added: all of them, or with a cursor those new since the last mine. */
  added: Chain[];
  /** PRs a stage may be made of, and how to patch them. */
  stageable: number[];
  patches: PatchSource;
  /** Set when nothing was read or written: the clone's branch has not moved since the last mine into --out. */
  unchangedSince?: MineCursor;
}
