import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mineChains } from '../../src/cli/mine';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import type { Chain } from '../../src/schemas';

/** The demo's chain #2 → #4 → #6, mined from a freshly generated repository under `dir` (or a temp dir). */
export async function demoChain(name = 'demo/tally', dir?: string): Promise<Chain> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'chainsmith-demo-chain-')));
  const { path } = await generateDemoRepo(join(root, 'tally'));
  const [chain] = (await mineChains(path, name)).chains;
  return chain;
}
