import type { Chain, Edge, PullRequest } from '../../schemas';
import { chainStrength, DEFAULT_MAX_LENGTH, linkingEdges, type ChainOptions } from './chains';

type Numbered = { prs: readonly { number: number }[] };

/** Strongest confidence between two PRs, either direction. */
function strength(edges: readonly Edge[], a: number, b: number): number {
  return Math.max(
    0,
    ...edges.filter((e) => (e.from === a && e.to === b) || (e.from === b && e.to === a)).map((e) => e.confidence),
  );
}

/**
 * How an incremental mine grows earlier chains: from a chain's last stage, the strongest link of a
 * new PR that builds on it (the edge goes from the new PR to it), then on from that PR through new
 * PRs only, up to `maxLength`. A chain no new PR builds on is not grown. Ties go to the earlier PR.
 */
export function extensionPaths<C extends Numbered>(
  previous: readonly C[],
  edges: readonly Edge[],
  fresh: ReadonlySet<number>,
  opts: ChainOptions = {},
): { chain: C; path: number[] }[] {
  const maxLength = opts.maxLength ?? DEFAULT_MAX_LENGTH;
  const linking = linkingEdges(edges, opts);
  const builtOn = (at: number, path: number[]) =>
    linking
      .filter((e) => e.to === at && fresh.has(e.from) && !path.includes(e.from))
      .sort((a, b) => b.confidence - a.confidence || a.from - b.from)[0]?.from;
  const paths: { chain: C; path: number[] }[] = [];
  for (const chain of previous) {
    const path = chain.prs.map((pr) => pr.number);
    for (
      let next = builtOn(path[path.length - 1], path);
      next !== undefined && path.length < maxLength;
      next = builtOn(path[path.length - 1], path)
    )
      path.push(next);
    if (path.length > chain.prs.length) paths.push({ chain, path });
  }
  return paths;
}

/** An earlier chain grown by new PRs (already patched): a new id, its links and score as chains.ts makes them. */
export function extendChain(
  chain: Chain,
  path: number[],
  patched: ReadonlyMap<number, PullRequest>,
  edges: readonly Edge[],
  opts: ChainOptions = {},
): Chain {
  const linking = linkingEdges(edges, opts);
  const members = new Set(path);
  const strengths = path.slice(1).map((n, i) => strength(linking, path[i], n));
  return {
    id: `${chain.repo.name}#${path.join('-')}`,
    repo: chain.repo,
    prs: [...chain.prs, ...path.slice(chain.prs.length).map((n) => patched.get(n) as PullRequest)],
    edges: linking.filter((e) => members.has(e.from) && members.has(e.to)),
    score: Math.round((strengths.reduce((sum, x) => sum + x, 0) / strengths.length) * 1000) / 1000,
    strength: chainStrength(path, linking),
  };
}

function isRunOf(part: number[], whole: number[]): boolean {
  const start = whole.indexOf(part[0]);
  return start >= 0 && part.every((n, i) => whole[start + i] === n);
}

/**
 * The chains an incremental mine adds: the extensions, then the chains built over the whole graph
 * that hold a new PR, leaving out any an earlier mine wrote and any that is a run of an extension
 * (the same work, shorter).
 */
export function addedChains(
  previous: readonly Chain[],
  extensions: readonly Chain[],
  rebuilt: readonly Chain[],
  fresh: ReadonlySet<number>,
): Chain[] {
  const known = new Set(previous.map((chain) => chain.id));
  const grown = extensions.map((chain) => chain.prs.map((pr) => pr.number));
  const added: Chain[] = [];
  for (const chain of [...extensions, ...rebuilt]) {
    const numbers = chain.prs.map((pr) => pr.number);
    if (known.has(chain.id) || !numbers.some((n) => fresh.has(n))) continue;
    if (!extensions.includes(chain) && grown.some((path) => isRunOf(numbers, path))) continue;
    known.add(chain.id);
    added.push(chain);
  }
  return added;
}
