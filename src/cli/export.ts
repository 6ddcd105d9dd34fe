import { join, resolve } from 'node:path';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { dateWindow, describeWindow } from '../date-window';
import { collectRuns } from '../dataset/collect-runs';
import { readRunsFile } from '../dataset/runs-file';
import type { DatasetStats } from '../dataset/stats';
import { exportDataset } from '../dataset/write-dataset';
import type { ChainRun } from '../schemas';
import { connectClient } from './temporal';

interface ExportOptions {
  runs?: string;
  out?: string;
  query?: string;
  /** ISO times (parseDateOption): only runs whose PRs were all merged in [mergedAfter, mergedBefore). */
  mergedAfter?: string;
  mergedBefore?: string;
}

export function defaultExportDir(config: Config): string {
  return join(config.dataDir, 'datasets', 'export');
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const int = (x: number) => Math.round(x).toLocaleString('en-US');

/** `chainsmith export`: finished runs (from Temporal, or a runs file) → the SFT dataset and its manifest. */
export async function exportCommand(
  config: Config,
  opts: ExportOptions,
  say: (line: string) => void = console.log,
): Promise<void> {
  const window = dateWindow(opts.mergedAfter, opts.mergedBefore);
  const out = resolve(opts.out ?? defaultExportDir(config));
  let runs: ChainRun[];
  if (opts.runs) {
    runs = await readRunsFile(opts.runs);
    say(`read ${runs.length} run(s) from ${opts.runs}`);
  } else {
    const client = await connectClient(config);
    try {
      const collected = await collectRuns(client, ArtifactStore.fromConfig(config), {
        query: opts.query,
        threshold: config.judge.threshold,
      });
      runs = collected.runs;
      say(`collected ${runs.length} finished chain run(s) from Temporal at ${config.temporal.address}`);
      for (const s of collected.skipped) say(`  skipped ${s.workflowId}: ${s.reason}`);
    } finally {
      await client.connection.close();
    }
  }

  const manifest = await exportDataset(runs, out, window);
  if (manifest.window) {
    const { runsOutside, runsUndated } = manifest.window;
    say(
      `dates: PRs ${describeWindow(manifest.window)}; left out ${runsOutside} run(s) with a PR merged outside, ${runsUndated} without merge dates`,
    );
  }
  say(`runs: ${manifest.runs.total} (accepted ${manifest.runs.accepted}, rejected ${manifest.runs.rejected})`);
  for (const r of manifest.rejections) say(`  left out ${r.chainId} (${r.policy}): ${r.reason}`);
  say(
    `samples: ${manifest.samples.total} (${manifest.samples.added} new; duplicates dropped: ${manifest.duplicates.sameContent} same content, ${manifest.duplicates.sameChain} same chain)`,
  );
  for (const [policy, raw] of Object.entries(manifest.stats)) {
    const s = raw as DatasetStats;
    say(
      `  ${policy}: ${s.samples} sample(s), tokens mean ${int(s.tokens.mean)} (${pct(s.tokens.mean / manifest.paper.meanTokens)} of the paper's ${int(manifest.paper.meanTokens)}), ` +
        `tool calls mean ${s.toolCalls.mean.toFixed(1)} (paper ${manifest.paper.meanToolCalls}); tokenizer ${manifest.tokenizer}`,
    );
  }
  const leak = manifest.leak;
  if (leak.queries) {
    say(
      `queries: leak rate ${pct(leak.rate)} (${leak.leaked} of ${leak.queries} over the limit as kept; ${leak.caught} leaked when first written; ${leak.regenerations} regeneration(s))`,
    );
  }
  for (const f of manifest.files) say(`  ${join(out, f.path)}: ${f.rows} row(s)`);
  say(`manifest: ${join(out, 'manifest.json')}`);
}
