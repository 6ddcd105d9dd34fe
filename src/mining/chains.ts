import { ChainSchema, type Chain, type Edge, type PullRequest, type RepoSource } from '../schemas';

/** The paper caps chains at about five PRs. */
const DEFAULT_MAX_LENGTH = 5;

/** PR numbers grouped by undirected connectivity; singletons are left out. */
function linkedGroups(numbers: number[], edges: Edge[]): number[][] {
  const neighbours = new Map<number, number[]>(numbers.map((n) => [n, []]));
  for (const edge of edges) {
    neighbours.get(edge.from)?.push(edge.to);
    neighbours.get(edge.to)?.push(edge.from);
  }
  const seen = new Set<number>();
  const groups: number[][] = [];
  for (const start of numbers) {
    if (seen.has(start)) continue;
    const group: number[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const current = stack.pop() as number;
      group.push(current);
      for (const next of neighbours.get(current) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    if (group.length >= 2) groups.push(group);
  }
  return groups;
}

/**
 * Orders a group so that every edge's target precedes its source; among PRs that are free to go
 * next, the earliest merged goes first. A cycle (two PRs naming each other) is broken the same way.
 */
function dependencyOrder(group: number[], edges: Edge[], byNumber: Map<number, PullRequest>): number[] {
  const members = new Set(group);
  const waitingOn = new Map<number, Set<number>>(group.map((n) => [n, new Set<number>()]));
  for (const edge of edges) {
    if (members.has(edge.from) && members.has(edge.to)) waitingOn.get(edge.from)?.add(edge.to);
  }
  const earliest = (a: number, b: number): number => {
    const [left, right] = [byNumber.get(a)?.mergedAt ?? '', byNumber.get(b)?.mergedAt ?? ''];
    return left.localeCompare(right) || a - b;
  };
  const ordered: number[] = [];
  const remaining = [...group].sort(earliest);
  while (remaining.length > 0) {
    const free = remaining.find((n) => [...(waitingOn.get(n) ?? [])].every((dep) => ordered.includes(dep)));
    const next = free ?? remaining[0];
    ordered.push(next);
    remaining.splice(remaining.indexOf(next), 1);
  }
  return ordered;
}

/**
 * Chains of linked PRs in dependency order, at most `maxLength` long (the earliest stages are
 * kept), oldest chain first.
 */
export function buildChains(
  repo: RepoSource,
  prs: PullRequest[],
  edges: Edge[],
  opts: { maxLength?: number } = {},
): Chain[] {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const known = edges.filter((edge) => byNumber.has(edge.from) && byNumber.has(edge.to));

  const chains: Chain[] = [];
  for (const group of linkedGroups([...byNumber.keys()], known)) {
    const numbers = dependencyOrder(group, known, byNumber).slice(0, maxLength);
    if (numbers.length < 2) continue;
    const kept = new Set(numbers);
    chains.push(
      ChainSchema.parse({
        id: `${repo.name}#${numbers.join('-')}`,
        repo,
        prs: numbers.map((n) => byNumber.get(n)),
        edges: known.filter((edge) => kept.has(edge.from) && kept.has(edge.to)),
      }),
    );
  }
  return chains.sort((a, b) => a.prs[0].mergedAt.localeCompare(b.prs[0].mergedAt));
}
