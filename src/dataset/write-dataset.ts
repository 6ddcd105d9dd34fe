import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeWindow, type DateWindow } from '../date-window';
import { InputError } from '../errors';
import { summarizeLeaks } from '../queries/leak-rate';
import { ChainRunSchema, TrainingSampleSchema, type ChainRun, type TrainingSample } from '../schemas';
import { sampleFromRun } from './build-sample';
import { selectByDate } from './date-select';
import { writeAtomic } from '../atomic-file';
import { readJsonl, toJsonl } from './jsonl';
import { ManifestSchema, statsKey, type Manifest } from './manifest';
import { runKey } from './runs-file';
import { SAMPLE_GROUPS } from './sample-files';
import { rejectionSample, type Rejection } from './select';
import { toShareGpt } from './sharegpt';
import { datasetStats, PAPER } from './stats';
import { TOKENIZER } from './tokens';
import { toolCallProblems } from './tool-calls';

export const RUNS_FILE = 'runs.jsonl';
export const MANIFEST_FILE = 'manifest.json';

const scaffoldOf = (s: TrainingSample) => s.metadata.scaffold ?? 'tools';
// The two scaffolds' samples of one chain are different data, not duplicates.
const chainKey = (s: TrainingSample) =>
  JSON.stringify([
    s.metadata.repo,
    s.metadata.prs,
    s.metadata.policy,
    s.metadata.model ?? '',
    ...(scaffoldOf(s) === 'tools' ? [] : [scaffoldOf(s)]),
  ]);
const meanScore = (s: TrainingSample) =>
  s.metadata.stages.reduce((a, x) => a + x.score, 0) / Math.max(1, s.metadata.stages.length);

/** Runs, accepted and left out, per scaffold: the acceptance rate is what tells the scaffolds apart first. */
function runsByScaffold(
  runs: ChainRun[],
  accepted: ChainRun[],
): Record<string, { total: number; accepted: number; rejected: number }> {
  const counts: Record<string, { total: number; accepted: number; rejected: number }> = {};
  const kept = new Set(accepted);
  for (const run of runs) {
    const c = (counts[run.scaffold ?? 'tools'] ??= { total: 0, accepted: 0, rejected: 0 });
    c.total += 1;
    if (kept.has(run)) c.accepted += 1;
    else c.rejected += 1;
  }
  return counts;
}

/** What an earlier export left in `outDir`; a row that no longer parses stops the export before it writes. */
async function previousExport(outDir: string): Promise<{ samples: TrainingSample[]; runs: ChainRun[] }> {
  const samples: TrainingSample[] = [];
  for (const { file } of SAMPLE_GROUPS) {
    samples.push(...((await readJsonl(join(outDir, `${file}.jsonl`), TrainingSampleSchema, 'training sample')) ?? []));
  }
  return { samples, runs: (await readJsonl(join(outDir, RUNS_FILE), ChainRunSchema, 'chain run')) ?? [] };
}

const windowName = (window?: DateWindow) => (window ? `of PRs ${describeWindow(window)}` : 'of every merge date');

/** A dated export is a held-out set: it never merges with an export of other dates, which may hold what it must not. */
async function checkSameWindow(outDir: string, window?: DateWindow): Promise<void> {
  if (!existsSync(join(outDir, MANIFEST_FILE))) return;
  const earlier = (await readManifest(outDir)).window;
  if (earlier?.mergedAfter !== window?.mergedAfter || earlier?.mergedBefore !== window?.mergedBefore) {
    throw new InputError(
      `${outDir} holds an export ${windowName(earlier)}; write the one ${windowName(window)} to another --out`,
    );
  }
}

/**
 * Writes the SFT dataset for `runs` into `outDir`, merged with what an earlier export left there:
 * rejection sampling by the verdicts, one sample per accepted chain in OpenAI chat format and as a
 * ShareGPT-style variant, de-duplicated (same content → same id; same chain, policy, scaffold and model → the
 * best-scored one), the runs (for the report, without their conversations) and a manifest. Everything
 * is validated before anything is written, and each file is replaced atomically: a bad input leaves the
 * earlier export as it was. With a date window only runs whose PRs were all merged in it are taken.
 */
export async function exportDataset(given: ChainRun[], outDir: string, window?: DateWindow): Promise<Manifest> {
  await checkSameWindow(outDir, window);
  const dated = window ? selectByDate(given, window) : undefined;
  const runs = dated?.kept ?? given;
  const before = await previousExport(outDir);
  const allRuns = new Map(before.runs.map((r) => [runKey(r), r]));
  for (const run of runs) allRuns.set(runKey(run), run);
  const sortedRuns = [...allRuns.values()].sort((a, b) => runKey(a).localeCompare(runKey(b)));

  const { accepted, rejected } = rejectionSample(sortedRuns);
  const rejections: Rejection[] = [...rejected];
  const fresh = new Set(runs.map(runKey));
  const candidates: TrainingSample[] = [];
  for (const run of accepted) {
    const reject = (reason: string) =>
      rejections.push({
        chainId: run.chainId,
        workflowId: run.workflowId,
        policy: run.policy,
        status: run.status,
        reason,
      });
    // Runs from an earlier export carry no conversation: their samples are in the files already.
    if (!run.trajectory) {
      if (fresh.has(runKey(run))) reject('accepted, but its conversation is missing');
      continue;
    }
    const sample = sampleFromRun(run);
    const problems = toolCallProblems(sample.messages, sample.tools);
    if (problems.length) reject(`unusable conversation: ${problems.join('; ')}`);
    else candidates.push(sample);
  }

  // Earlier rows are kept as they are; new ones join unless the same content or chain is already there.
  const kept = [...before.samples];
  const ids = new Set(kept.map((s) => s.id));
  const chains = new Set(kept.map(chainKey));
  const duplicates = { sameContent: 0, sameChain: 0 };
  const byChain = new Map<string, TrainingSample>();
  for (const s of candidates.sort((a, b) => a.id.localeCompare(b.id))) {
    if (ids.has(s.id)) duplicates.sameContent++;
    else if (chains.has(chainKey(s))) duplicates.sameChain++;
    else {
      const other = byChain.get(chainKey(s));
      if (other) duplicates.sameChain++;
      if (!other || meanScore(s) > meanScore(other)) byChain.set(chainKey(s), s);
      ids.add(s.id);
    }
  }
  const added = [...byChain.values()];
  const samples = [...kept, ...added];

  const files: Manifest['files'] = [];
  const outputs: [string, string][] = [];
  const emit = (path: string, format: Manifest['files'][number]['format'], rows: unknown[]) => {
    const text = toJsonl(rows);
    outputs.push([path, text]);
    files.push({ path, format, rows: rows.length, sha256: createHash('sha256').update(text).digest('hex') });
  };
  const stats: Record<string, unknown> = {};
  const byPolicy: Record<string, number> = {};
  const byScaffold: Record<string, number> = {};
  for (const { policy, scaffold, file } of SAMPLE_GROUPS) {
    const rows = samples.filter((s) => s.metadata.policy === policy && scaffoldOf(s) === scaffold);
    if (!rows.length) continue;
    emit(`${file}.jsonl`, 'openai', rows);
    emit(`${file}.sharegpt.jsonl`, 'sharegpt', rows.map(toShareGpt));
    stats[statsKey(policy, scaffold)] = datasetStats(rows);
    byPolicy[policy] = (byPolicy[policy] ?? 0) + rows.length;
    byScaffold[scaffold] = (byScaffold[scaffold] ?? 0) + rows.length;
  }
  // The report reads conversations from the sample files; the runs file keeps everything else.
  emit(
    RUNS_FILE,
    'runs',
    sortedRuns.map(({ trajectory: _omitted, ...rest }) => rest),
  );

  const manifest = ManifestSchema.parse({
    format: 'chainsmith-sft-v1',
    tokenizer: TOKENIZER,
    runs: {
      total: sortedRuns.length,
      accepted: accepted.length,
      rejected: rejected.length,
      byScaffold: runsByScaffold(sortedRuns, accepted),
    },
    samples: { total: samples.length, byPolicy, byScaffold, added: added.length },
    duplicates,
    rejections,
    files,
    stats,
    leak: summarizeLeaks(sortedRuns.flatMap((r) => (r.queries ? [r.queries] : []))),
    paper: PAPER,
    ...(window && dated ? { window: { ...window, runsOutside: dated.outside, runsUndated: dated.undated } } : {}),
  });
  outputs.push([MANIFEST_FILE, `${JSON.stringify(manifest, null, 2)}\n`]);
  for (const [path, text] of outputs) await writeAtomic(join(outDir, path), text);
  return manifest;
}

export async function readManifest(outDir: string): Promise<Manifest> {
  const path = join(outDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new InputError(`no export in ${outDir} (${MANIFEST_FILE} is missing): run \`chainsmith export\` first`, {
      cause,
    });
  }
  const parsed = ManifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new InputError(`${path} is not a chainsmith manifest: ${parsed.error.issues[0].message}`);
  return parsed.data;
}
