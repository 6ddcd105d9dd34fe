import { join } from 'node:path';
import { readJsonl } from '../dataset/jsonl';
import { SAMPLE_GROUPS } from '../dataset/sample-files';
import { readManifest, RUNS_FILE } from '../dataset/write-dataset';
import type { Manifest } from '../dataset/manifest';
import { ChainRunSchema, TrainingSampleSchema, type ChainRun, type TrainingSample } from '../schemas';

export interface ExportContents {
  dir: string;
  manifest: Manifest;
  runs: ChainRun[];
  samples: TrainingSample[];
}

/** What `chainsmith export` wrote: the manifest, every run, and the samples of both policies and both scaffolds. */
export async function loadExport(dir: string): Promise<ExportContents> {
  const manifest = await readManifest(dir);
  const runs = (await readJsonl(join(dir, RUNS_FILE), ChainRunSchema, 'chain run')) ?? [];
  const samples: TrainingSample[] = [];
  for (const { file } of SAMPLE_GROUPS)
    samples.push(...((await readJsonl(join(dir, `${file}.jsonl`), TrainingSampleSchema, 'training sample')) ?? []));
  return { dir, manifest, runs, samples };
}
