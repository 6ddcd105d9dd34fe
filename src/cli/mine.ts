import { resolve } from 'node:path';
import { buildChains } from '../mining/chains';
import { mineLocalRepo } from '../mining/local-git';
import { extractEdges } from '../mining/references';
import type { Chain } from '../schemas';
import { writeChains } from './chains-file';

export async function mineChains(repoPath: string, name: string, maxLength?: number): Promise<{ chains: Chain[]; prs: number; edges: number }> {
  const path = resolve(repoPath);
  const prs = await mineLocalRepo(path);
  const edges = extractEdges(prs);
  return { chains: buildChains({ name, path }, prs, edges, { maxLength }), prs: prs.length, edges: edges.length };
}

export async function mineCommand(repoPath: string, opts: { name?: string; out: string; maxLength?: number }): Promise<void> {
  const name = opts.name ?? resolve(repoPath).split('/').pop()!;
  const result = await mineChains(repoPath, name, opts.maxLength);
  await writeChains(opts.out, result.chains);
  console.log(`mined ${result.prs} PRs, ${result.edges} edges, ${result.chains.length} chains → ${opts.out}`);
  for (const c of result.chains) console.log(`  ${c.id}: ${c.prs.map((p) => `#${p.number}`).join(' → ')}`);
}
