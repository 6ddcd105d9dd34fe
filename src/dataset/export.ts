import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Chain, PolicyKind, ScaffoldKind, TrainingSample, Trajectory } from '../schemas';
import { makeSample } from './build-sample';
import { sampleFile } from './sample-files';

/** Gold replays and model rollouts never share a file, nor do the two scaffolds (their rows differ in shape). */
export function datasetPath(dataDir: string, policy: PolicyKind, scaffold: ScaffoldKind = 'tools'): string {
  return join(dataDir, 'datasets', `${sampleFile(policy, scaffold)}.jsonl`);
}

/** The sample a finished workflow appends right away; `chainsmith export` builds the same row (same id). */
export function buildSample(
  chain: Chain,
  trajectory: Trajectory,
  stages: { prNumber: number; score: number; rounds: number; leakScore?: number }[],
): TrainingSample {
  return makeSample({
    repo: chain.repo.name,
    prs: chain.prs.map((pr) => pr.number),
    trajectory,
    stages,
    chainId: chain.id,
  });
}

/** Appends one JSONL row unless a row with the same id is there already (a retried activity). */
export async function appendSample(path: string, sample: TrainingSample): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const existing = await readFile(path, 'utf8').catch(() => '');
  if (existing.includes(`{"id":"${sample.id}"`)) return false;
  await appendFile(path, `${JSON.stringify(sample)}\n`);
  return true;
}
