import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mineChains } from '../../src/mining/output/mine-to-files';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import type { Chain } from '../../src/schemas';

/**
 * The demo's chain #2 → #4 → #6, mined from a freshly generated repository, under a repository name
 * unique to this call (`<prefix>-<time>-<random>/tally`): workflow ids derive from it, and the dev
 * server outlives test runs. For tests and benchmarks alike.
 */
export async function demoChain(prefix: string): Promise<Chain> {
  const repo = await generateDemoRepo(join(await mkdtemp(join(tmpdir(), 'chainsmith-repo-')), 'tally'));
  const mined = await mineChains(repo.path, `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}/tally`);
  return mined.chains[0];
}
