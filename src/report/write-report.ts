import { join } from 'node:path';
import { writeAtomic } from '../atomic-file';
import { loadExport } from './load-export';
import { page } from './page';
import { plots, type Prices } from './plots';
import { summaryHtml } from './summary';
import { trajectoryView } from './trajectory-view';
import { unjudgeableHtml } from './unjudgeable';

export interface ReportOptions {
  /** Where to write the page (default: report.html in the export directory). */
  out?: string;
  /** The sample shown first in the trajectory view. */
  sample?: string;
  prices?: Prices;
}

/** Renders the static HTML report of an export directory and returns the file it wrote. */
export async function writeReport(exportDir: string, opts: ReportOptions = {}): Promise<string> {
  const contents = await loadExport(exportDir);
  // Model rollouts first: they are what the dataset is for; gold replays only prove the environments.
  const rank = (policy: string) => (policy === 'model' ? 0 : 1);
  const samples = [...contents.samples].sort(
    (a, b) => rank(a.metadata.policy) - rank(b.metadata.policy) || a.id.localeCompare(b.id),
  );
  const repos = [...new Set(contents.runs.map((r) => r.repo))].sort();
  const html = page({
    title: 'chainsmith dataset report',
    subtitle: `${exportDir} · ${repos.join(', ') || 'no runs'} · compared with daVinci-Agency (239 samples, 85k tokens and 116 tool calls on average)`,
    summary: summaryHtml(contents.manifest) + unjudgeableHtml(contents.runs),
    plots: plots(contents, opts.prices),
    trajectories: trajectoryView(samples, opts.sample),
  });
  const out = opts.out ?? join(exportDir, 'report.html');
  await writeAtomic(out, html);
  return out;
}
