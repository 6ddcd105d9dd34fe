import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomic } from '../atomic-file';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import type { MineResult } from '../mining/output/mine-result';
import { mineToFiles } from '../mining/output/mine-to-files';
import { linkJudgeFromConfig } from '../mining/links/link-judge/from-config';
import type { Chain } from '../schemas';
import { batchEntry, batchWorkflowId } from '../batches/entries';
import { fetchClone } from './fetch-clone';
import { repoSlug } from './repos-file';
import type { MinedForSchedule, ScheduledRunInput } from '../workflows/types';

/** Where a schedule keeps one repository's chains, PR records, edges, summary and cursor. */
export function scheduleFolder(config: Config, scheduleId: string, slug: string): string {
  return join(config.dataDir, 'schedules', scheduleId.replace(/[^\w.-]+/g, '_'), slug);
}

/**
 * One repository of one scheduled run: fetch it, mine what is new since the last run into the
 * schedule's files, and store the new chains as a batch. The answer is kept under the run's workflow
 * id first, so a retried attempt (or run) hands the same batch on instead of finding nothing new.
 */
export async function mineForSchedule(
  config: Config,
  run: ScheduledRunInput,
  index: number,
  workflowId: string,
): Promise<MinedForSchedule> {
  const repo = run.repos[index];
  const folder = scheduleFolder(config, run.scheduleId, repoSlug(repo, index));
  const record = join(folder, 'runs', `${workflowId.replace(/[^\w.-]+/g, '_')}.json`);
  const earlier = await readFile(record, 'utf8').catch(() => undefined);
  if (earlier) return JSON.parse(earlier) as MinedForSchedule;

  await mkdir(join(folder, 'runs'), { recursive: true });
  const branch = repo.clone ? await fetchClone(repo.clone, { remote: repo.remote, branch: repo.branch }) : repo.branch;
  // Through the API the listing is asked again every run (unchanged pages cost no rate limit), not trusted for an hour.
  const source = repo.github ? { github: repo.github, clone: repo.clone, refresh: true } : { repo: repo.clone };
  const warn = (message: string) => console.error(`warning: ${repo.source}: ${message}`);
  let result: MinedForSchedule = { source: repo.source, newChains: [] };
  // Recorded before the mine's files move on: an attempt cut short after that still hands its chains on.
  const beforeWrite = async (mined: MineResult) => {
    result = await asBatch(config, run, repo.source, mined.added);
    await writeAtomic(record, JSON.stringify(result));
  };
  const judge = repo.judgeLinks
    ? linkJudgeFromConfig(config, (note) => console.error(`note: ${repo.source}: ${note}`))
    : undefined;
  await mineToFiles(
    // No one can add --fresh to a schedule: a repos file edited, or another judge model, mines again from scratch.
    {
      ...source,
      ...run.mine,
      name: repo.name,
      branch,
      out: join(folder, 'chains.jsonl'),
      beforeWrite,
      whenOptionsChange: 'fresh',
    },
    { dataDir: config.dataDir, warn, ...(judge ? { judge } : {}) },
  );
  return result;
}

async function asBatch(
  config: Config,
  run: ScheduledRunInput,
  source: string,
  chains: Chain[],
): Promise<MinedForSchedule> {
  const result: MinedForSchedule = { source, newChains: chains.map((chain) => chain.id) };
  if (chains.length === 0) return result;
  const store = ArtifactStore.fromConfig(config);
  const entries = [];
  for (const chain of chains)
    entries.push(await batchEntry(store, config, chain, run.start.policy, run.start.scaffold));
  return {
    ...result,
    batch: { workflowId: batchWorkflowId(entries), batchRef: await store.putJson(entries), total: entries.length },
  };
}
