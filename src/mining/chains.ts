import type { Edge, PullRequestRecord, RepoSource } from '../schemas';

/** The paper caps chains at about five PRs. */
export const DEFAULT_MAX_LENGTH = 5;

export interface ChainOptions {
  /** Longest chain; longer dependency runs are cut into several chains. */
  maxLength?: number;
  /** How many chains one PR may join (1: chains never share a PR). */
  maxChainsPerPr?: number;
  /** Edges below this confidence do not link PRs. */
  minConfidence?: number;
}

/** A chain over whatever PR type the caller has: records while planning, full PRs once patched. */
export interface ChainOf<P> {
  id: string;
  repo: RepoSource;
  prs: P[];
  edges: Edge[];
  score: number;
}

type Dated = Pick<PullRequestRecord, 'number' | 'mergedAt'>;

/**
 * Orders a group so that every edge's target precedes its source; among PRs that are free to go
 * next, the earliest merged goes first. A cycle (two PRs naming each other) is broken the same way.
 */
function dependencyOrder(group: number[], edges: Edge[], byNumber: Map<number, Dated>): number[] {
  const members = new Set(group);
  const waitingOn = new Map<number, Set<number>>(group.map((n) => [n, new Set<number>()]));
  for (const edge of edges) {
    if (members.has(edge.from) && members.has(edge.to)) waitingOn.get(edge.from)?.add(edge.to);
  }
  const ordered: number[] = [];
  const remaining = [...group].sort((a, b) => earliest(byNumber, a, b));
  while (remaining.length > 0) {
    const free = remaining.find((n) => [...(waitingOn.get(n) ?? [])].every((dep) => ordered.includes(dep)));
    const next = free ?? remaining[0];
    ordered.push(next);
    remaining.splice(remaining.indexOf(next), 1);
  }
  return ordered;
}

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
 * Chains of linked PRs in dependency order. Each chain grows from its earliest PR by repeatedly
 * taking the linked PR with the strongest link (among those in the fewest chains so far, ties to
 * the earliest merged) until it is `maxLength` long, so a long run of dependent PRs becomes
 * several chains rather than one cut short. A chain's score is the mean confidence of the links
 * that grew it. Chains come oldest first.
 */
export function buildChains<P extends Dated>(repo: RepoSource, prs: P[], edges: Edge[], opts: ChainOptions = {}): ChainOf<P>[] {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const limit = opts.maxChainsPerPr ?? 1;
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const known = edges.filter(
    (edge) => edge.from !== edge.to && byNumber.has(edge.from) && byNumber.has(edge.to) && edge.confidence >= (opts.minConfidence ?? 0),
  );
  const links = linkMap(known);
  const uses = new Map<number, number>();
  const used = (n: number) => uses.get(n) ?? 0;

  const grow = (seed: number): { members: number[]; strengths: number[] } => {
    const members = [seed];
    const strengths: number[] = [];
    const candidates = new Map<number, number>();
    const offer = (from: number) => {
      for (const [next, confidence] of links.get(from) ?? []) {
        if (used(next) < limit && !members.includes(next)) candidates.set(next, Math.max(candidates.get(next) ?? 0, confidence));
      }
    };
    offer(seed);
    while (members.length < maxLength && candidates.size > 0) {
      let best: [number, number] | undefined;
      for (const candidate of candidates) {
        if (!best) best = candidate;
        else {
          const order = used(candidate[0]) - used(best[0]) || best[1] - candidate[1] || earliest(byNumber, candidate[0], best[0]);
          if (order < 0) best = candidate;
        }
      }
      const [next, confidence] = best as [number, number];
      candidates.delete(next);
      members.push(next);
      strengths.push(confidence);
      offer(next);
    }
    return { members, strengths };
  };

  const chains: ChainOf<P>[] = [];
  const seen = new Set<string>();
  const seeds = [...byNumber.keys()].filter((n) => links.has(n)).sort((a, b) => earliest(byNumber, a, b));
  for (const seed of seeds) {
    while (used(seed) < limit) {
      const { members, strengths } = grow(seed);
      const key = [...members].sort((a, b) => a - b).join(',');
      if (members.length < 2 || seen.has(key)) break;
      seen.add(key);
      for (const n of members) uses.set(n, used(n) + 1);
      const numbers = dependencyOrder(members, known, byNumber);
      const kept = new Set(numbers);
      chains.push({
        id: `${repo.name}#${numbers.join('-')}`,
        repo,
        prs: numbers.map((n) => byNumber.get(n) as P),
        edges: known.filter((edge) => kept.has(edge.from) && kept.has(edge.to)),
        score: Math.round((strengths.reduce((sum, s) => sum + s, 0) / strengths.length) * 1000) / 1000,
      });
    }
  }
  return chains.sort((a, b) => earliest(byNumber, a.prs[0].number, b.prs[0].number));
}
