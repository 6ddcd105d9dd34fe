import type { Edge, PullRequestRecord, RepoSource, Strength } from '../../schemas';
import { atLeast, weaker } from '../links/strength';

/** The paper caps chains at about five PRs. */
export const DEFAULT_MAX_LENGTH = 5;
/** A PR may stand in a few chains (two fixes of one feature are two chains), not in every one. */
export const DEFAULT_CHAINS_PER_PR = 3;
/** Below this an edge is a hint (a plain mention, weak code history), not a link chains are built on. */
export const DEFAULT_MIN_CONFIDENCE = 0.6;
/**
 * Chains are built on strong links by default: a weak link (deprecate → remove, a typo, test or
 * one-line follow-up) is real but gives the later stage little of the earlier one as context.
 * Measured on the tuning repositories' blind labels, chains of weak links were the ones whose links
 * the labellers called weak. `--min-strength weak` lets them join chains too.
 */
export const DEFAULT_MIN_STRENGTH: Strength = 'strong';

export interface ChainOptions {
  /** Longest chain; longer dependency runs are cut into several chains. */
  maxLength?: number;
  /** How many chains one PR may join (1: chains never share a PR). */
  maxChainsPerPr?: number;
  /** Edges below this confidence do not link PRs. */
  minConfidence?: number;
  /** Edges weaker than this do not link PRs. */
  minStrength?: Strength;
}

/** The edges chains are built on: sure enough and strong enough. */
export function linkingEdges(edges: readonly Edge[], opts: ChainOptions = {}): Edge[] {
  const min = opts.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  return edges.filter(
    (edge) =>
      edge.from !== edge.to && edge.confidence >= min && atLeast(edge, opts.minStrength ?? DEFAULT_MIN_STRENGTH),
  );
}

/** A chain's strength: its weakest consecutive link, each pair by its strongest edge. */
export function chainStrength(path: readonly number[], edges: readonly Edge[]): Strength {
  let strength: Strength = 'strong';
  for (let i = 1; i < path.length; i++) {
    const pair = edges.filter(
      (edge) =>
        (edge.from === path[i] && edge.to === path[i - 1]) || (edge.from === path[i - 1] && edge.to === path[i]),
    );
    strength = weaker(strength, pair.some((edge) => atLeast(edge, 'strong')) ? 'strong' : 'weak');
  }
  return strength;
}

/** A chain over whatever PR type the caller has: records while planning, full PRs once patched. */
interface ChainOf<P> {
  id: string;
  repo: RepoSource;
  prs: P[];
  edges: Edge[];
  score: number;
  strength: Strength;
}

type Dated = Pick<PullRequestRecord, 'number' | 'mergedAt'>;

function earliest(byNumber: Map<number, Dated>, a: number, b: number): number {
  const [left, right] = [byNumber.get(a)?.mergedAt ?? '', byNumber.get(b)?.mergedAt ?? ''];
  return left.localeCompare(right) || a - b;
}

/** Strongest confidence between each pair of linked PRs, either direction. */
function linkMap(edges: Edge[]): Map<number, Map<number, number>> {
  const links = new Map<number, Map<number, number>>();
  const add = (a: number, b: number, confidence: number) => {
    const own = links.get(a) ?? new Map<number, number>();
    own.set(b, Math.max(own.get(b) ?? 0, confidence));
    links.set(a, own);
  };
  for (const edge of edges) {
    add(edge.from, edge.to, edge.confidence);
    add(edge.to, edge.from, edge.confidence);
  }
  return links;
}

/**
 * Chains as paths through the link graph in dependency order (a pair linked both ways or by
 * position alone goes by merge time), so that every consecutive pair is linked.
 * The strongest links seed chains first; each seed grows forward through the strongest link to a
 * later PR, then backward to an earlier one, until `maxLength`. A seed whose link an earlier chain
 * already holds adds nothing. A PR may join up to `maxChainsPerPr` chains, as where two fixes
 * follow one PR; that cap keeps one noisy, much-linked PR from taking over. A chain's score is the
 * mean confidence of its consecutive links. Chains come oldest first.
 */
export function buildChains<P extends Dated>(
  repo: RepoSource,
  prs: P[],
  edges: Edge[],
  opts: ChainOptions = {},
): ChainOf<P>[] {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const limit = opts.maxChainsPerPr ?? DEFAULT_CHAINS_PER_PR;
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const known = linkingEdges(edges, opts).filter((edge) => byNumber.has(edge.from) && byNumber.has(edge.to));
  const links = linkMap(known);
  const uses = new Map<number, number>();
  const free = (n: number) => (uses.get(n) ?? 0) < limit;
  // A linked pair goes in dependency order (an edge's target first); a pair linked both ways, by merge time.
  const dependsOn = new Set(known.map((edge) => `${edge.from}>${edge.to}`));
  const before = (a: number, b: number) => {
    const [aFirst, bFirst] = [dependsOn.has(`${b}>${a}`), dependsOn.has(`${a}>${b}`)];
    return aFirst !== bFirst ? aFirst : earliest(byNumber, a, b) < 0;
  };
  const pairKey = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  const covered = new Set<string>();

  /** The strongest free link from `at` to a PR on the wanted side of it in time. */
  const step = (at: number, path: number[], later: boolean): [number, number] | undefined => {
    let best: [number, number] | undefined;
    for (const [next, confidence] of links.get(at) ?? []) {
      if (path.includes(next) || !free(next) || before(next, at) !== !later) continue;
      if (!best || confidence > best[1] || (confidence === best[1] && earliest(byNumber, next, best[0]) < 0))
        best = [next, confidence];
    }
    return best;
  };

  const seeds = known
    .map((edge) => ({
      pair: before(edge.to, edge.from) ? [edge.to, edge.from] : [edge.from, edge.to],
      confidence: links.get(edge.from)?.get(edge.to) ?? 0,
    }))
    .sort(
      (a, b) =>
        b.confidence - a.confidence ||
        earliest(byNumber, a.pair[0], b.pair[0]) ||
        earliest(byNumber, a.pair[1], b.pair[1]),
    );
  const chains: ChainOf<P>[] = [];
  for (const { pair } of seeds) {
    if (covered.has(pairKey(pair[0], pair[1])) || !free(pair[0]) || !free(pair[1])) continue;
    const path = [...pair];
    for (
      let next = step(path[path.length - 1], path, true);
      next && path.length < maxLength;
      next = step(path[path.length - 1], path, true)
    )
      path.push(next[0]);
    for (let next = step(path[0], path, false); next && path.length < maxLength; next = step(path[0], path, false))
      path.unshift(next[0]);
    const strengths = path.slice(1).map((n, i) => links.get(path[i])?.get(n) ?? 0);
    path.slice(1).forEach((n, i) => covered.add(pairKey(path[i], n)));
    for (const n of path) uses.set(n, (uses.get(n) ?? 0) + 1);
    const members = new Set(path);
    chains.push({
      id: `${repo.name}#${path.join('-')}`,
      repo,
      prs: path.map((n) => byNumber.get(n) as P),
      edges: known.filter((edge) => members.has(edge.from) && members.has(edge.to)),
      score: Math.round((strengths.reduce((sum, x) => sum + x, 0) / strengths.length) * 1000) / 1000,
      strength: chainStrength(path, known),
    });
  }
  return chains.sort((a, b) => earliest(byNumber, a.prs[0].number, b.prs[0].number));
}
