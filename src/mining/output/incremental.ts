import { addedChains, extendChain, extensionPaths } from '../chains/extend-chains';
import type { ChainOptions } from '../chains/chains';
import { git, GitError } from '../../git';
import { chainCounts } from '../summary';
import { InputError } from '../../errors';
import type { Chain, Edge, PullRequest, PullRequestRecord } from '../../schemas';
import type { PreviousMine } from './cursor';
import type { MineResult } from './mine-result';

/** What a source needs of the earlier mine: its PRs, its edges, and the patches it already made. */
export interface Prior {
  numbers: ReadonlySet<number>;
  edges: Edge[];
  patched: ReadonlyMap<number, PullRequest>;
}

export function toPrior(previous: PreviousMine): Prior {
  const patched = new Map<number, PullRequest>();
  for (const chain of previous.chains) for (const pr of chain.prs) patched.set(pr.number, pr);
  return { numbers: new Set(previous.records.map((pr) => pr.number)), edges: previous.edges, patched };
}

/** The pipeline's view: earlier edges stay, and only PRs the earlier mine had not seen are blamed. */
export function priorOf(prior: Prior, records: readonly PullRequestRecord[]): { edges: Edge[]; newPrs: Set<number> } {
  return {
    edges: prior.edges,
    newPrs: new Set(records.filter((pr) => !prior.numbers.has(pr.number)).map((pr) => pr.number)),
  };
}

/** A clone's branch tip, or undefined where it has none (the mine then says what is wrong). */
export async function branchTip(clone: string, branch = 'HEAD'): Promise<string | undefined> {
  return git(clone, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${branch}^{commit}`]).then(
    (out) => out.trim(),
    () => undefined,
  );
}

/** A branch whose last mined tip is no longer in its history was rewritten: what was mined may not be there. */
export async function checkNotRewritten(clone: string, before: string, now: string, out: string): Promise<void> {
  try {
    await git(clone, ['merge-base', '--is-ancestor', before, now]);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new InputError(
      `the branch mined into ${out} was rewritten since (its tip then, ${before.slice(0, 12)}, is not in its history now): add --fresh to mine it again from scratch`,
      { cause: error },
    );
  }
}

/**
 * The files after a rerun: earlier PRs, edges and chains kept; new PRs and edges added once; chains
 * a new PR grows (new ids, the shorter chain kept) and chains new PRs make, added.
 */
export async function growPrevious(
  previous: PreviousMine,
  result: MineResult,
  opts: ChainOptions,
): Promise<MineResult> {
  const known = new Set(previous.records.map((pr) => pr.number));
  const newRecords = result.records.filter((pr) => !known.has(pr.number));
  const newNumbers = new Set(newRecords.map((pr) => pr.number));
  const fresh = new Set(result.stageable.filter((n) => newNumbers.has(n)));
  const growth = extensionPaths(previous.chains, result.edges, fresh, opts);
  const wanted = new Set(growth.flatMap(({ chain, path }) => path.slice(chain.prs.length)));
  const patched = new Map(
    (await result.patches(newRecords.filter((pr) => wanted.has(pr.number)))).map((pr) => [pr.number, pr]),
  );
  const extensions = growth.map(({ chain, path }) => extendChain(chain, path, patched, result.edges, opts));
  const added = addedChains(previous.chains, extensions, result.chains, newNumbers);
  const chains: Chain[] = [...previous.chains, ...added];
  const earlierPairs = new Set(previous.edges.map((edge) => `${edge.from}->${edge.to}`));
  const { inChains, ...counted } = chainCounts(chains);
  const summary = {
    ...result.summary,
    ...counted,
    ...(result.summary.funnel ? { funnel: { ...result.summary.funnel, inChains } } : {}),
    incremental: {
      since: previous.cursor.lastMergedAt,
      newPrs: newRecords.length,
      newEdges: result.edges.filter((edge) => !earlierPairs.has(`${edge.from}->${edge.to}`)).length,
      chainsAdded: added.length,
      chainsExtended: added.filter((chain) => extensions.includes(chain)).length,
    },
  };
  return { ...result, chains, added, records: [...previous.records, ...newRecords], summary };
}
