import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mineChains } from '../../src/cli/mine';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import type { Chain } from '../../src/schemas';

/**
 * The demo chain #2 → #4 → #6 under a repository name unique to this call: workflow ids derive from
 * it, and the dev server outlives test runs.
 */
export async function demoChain(prefix: string): Promise<Chain> {
  const repo = await generateDemoRepo(join(mkdtempSync(join(tmpdir(), 'chainsmith-repo-')), 'tally'));
  const mined = await mineChains(repo.path, `${prefix}-${Date.now()}-${Math.floor(Math.random() * 1e6)}/tally`);
  return mined.chains[0];
}
