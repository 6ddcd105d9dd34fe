import { rename, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { InputError } from '../errors';
import { withLocalPatches } from '../mining/local-patches';
import { readLocalPullRequests } from '../mining/local-git';
import { recordsToChains, type PipelineOptions } from '../mining/pipeline';
import { progressBar } from '../mining/progress-bar';
import type { ProgressListener } from '../mining/progress';
import { MiningSummarySchema, type MiningSummary } from '../mining/summary';
import { PullRequestRecordSchema, type Chain, type PullRequestRecord } from '../schemas';
import { writeChains } from './chains-file';

export interface MineResult {
  chains: Chain[];
  records: PullRequestRecord[];
  summary: MiningSummary;
  /** Kept for callers that only print counts. */
  prs: number;
  edges: number;
}

/** Mines a local clone into chains; what the demo calls. */
export async function mineChains(repoPath: string, name: string, maxLength?: number): Promise<MineResult> {
  return mineLocal(repoPath, name, { maxLength });
}

async function mineLocal(repoPath: string, name: string, opts: PipelineOptions & { branch?: string; onProgress?: ProgressListener }): Promise<MineResult> {
  const path = resolve(repoPath);
  const mined = await readLocalPullRequests(path, { branch: opts.branch, onProgress: opts.onProgress });
  const result = await recordsToChains({ name, path }, mined.prs, (prs) => withLocalPatches(path, prs), {
    ...opts,
    repo: opts.repo ?? name,
    pullNumbers: mined.pullNumbers,
  });
  const summary = MiningSummarySchema.parse({ repo: name, source: 'local', commits: mined.commits, ...result.summary });
  return { chains: result.chains, records: mined.prs, summary, prs: mined.prs.length, edges: result.edges.length };
}

export interface MineCommandOptions extends PipelineOptions {
  out: string;
  repo?: string;
  name?: string;
  branch?: string;
}

/** chains.jsonl → chains.prs.jsonl and chains.summary.json beside it. */
export function companionPaths(out: string): { prs: string; summary: string } {
  const stem = out.replace(/\.jsonl?$/, '');
  return { prs: `${stem}.prs.jsonl`, summary: `${stem}.summary.json` };
}

/** Written whole or not at all, like the chains file. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

export async function mineCommand(opts: MineCommandOptions): Promise<void> {
  if (!opts.repo) throw new InputError('say what to mine: --repo PATH (a local clone)');
  const name = opts.name ?? basename(resolve(opts.repo));
  const bar = progressBar();
  let result: MineResult;
  try {
    result = await mineLocal(opts.repo, name, { ...opts, onProgress: bar.listener });
  } finally {
    bar.stop();
  }
  const paths = companionPaths(opts.out);
  await writeAtomically(paths.prs, result.records.map((pr) => JSON.stringify(PullRequestRecordSchema.parse(pr)) + '\n').join(''));
  await writeAtomically(paths.summary, JSON.stringify(result.summary, null, 2) + '\n');
  await writeChains(opts.out, result.chains);
  report(result.summary, result.chains, opts.out, paths);
}

function report(summary: MiningSummary, chains: Chain[], out: string, paths: { prs: string; summary: string }): void {
  const dropped = Object.entries(summary.dropped).filter(([, n]) => n > 0).map(([why, n]) => `${n} ${why}`);
  const kinds = Object.entries(summary.edgesByKind).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`);
  const lengths = Object.entries(summary.chainsByLength).map(([length, n]) => `${n}×${length}`);
  console.log(`mined ${summary.prsSeen} PRs (${summary.prsEligible} eligible${dropped.length ? `; dropped ${dropped.join(', ')}` : ''})`);
  console.log(`edges: ${kinds.join(', ') || 'none'}; references to issues ${summary.references.issue}, other repositories ${summary.references.otherRepo}`);
  console.log(`${chains.length} chains${lengths.length ? ` (${lengths.join(', ')} PRs)` : ''} → ${out}; PR records → ${paths.prs}; summary → ${paths.summary}`);
  for (const c of chains) console.log(`  ${c.id}: ${c.prs.map((p) => `#${p.number}`).join(' → ')}  score ${c.score}`);
}
