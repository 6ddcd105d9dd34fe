import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TOOL_SPECS } from '../agent/tools';
import { TrainingSampleSchema, type Chain, type PolicyKind, type TrainingSample, type Trajectory } from '../schemas';

/** Gold replays and model rollouts never share a file. */
export function datasetPath(dataDir: string, policy: PolicyKind): string {
  return join(dataDir, 'datasets', policy === 'model' ? 'model-rollouts.jsonl' : 'gold-replays.jsonl');
}

export function buildSample(
  chain: Chain,
  trajectory: Trajectory,
  stages: { prNumber: number; score: number; rounds: number }[],
): TrainingSample {
  const id = createHash('sha256')
    .update(JSON.stringify([chain.id, trajectory.policy, trajectory.model ?? '', trajectory.messages]))
    .digest('hex')
    .slice(0, 16);
  return TrainingSampleSchema.parse({
    id,
    messages: trajectory.messages,
    tools: TOOL_SPECS,
    metadata: {
      repo: chain.repo.name,
      prs: chain.prs.map((pr) => pr.number),
      policy: trajectory.policy,
      model: trajectory.model,
      stages,
      usage: trajectory.usage,
      toolCalls: trajectory.toolCalls,
    },
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
