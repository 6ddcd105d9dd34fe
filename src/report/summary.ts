import type { DatasetStats } from '../dataset/stats';
import type { Manifest } from '../dataset/manifest';
import { escapeHtml } from './html';

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

const counts = (by: Record<string, number>) =>
  Object.entries(by)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ') || 'none';

/** The manifest's figures as a table (per policy and scaffold, so the two scaffolds compare side by side), and why chains were left out. */
export function summaryHtml(manifest: Manifest): string {
  const rows: [string, string][] = [
    ['chain runs', `${manifest.runs.total} (accepted ${manifest.runs.accepted}, left out ${manifest.runs.rejected})`],
    ...Object.entries(manifest.runs.byScaffold ?? {}).map(([scaffold, c]): [string, string] => [
      `chain runs · ${scaffold} scaffold`,
      `${c.total} (accepted ${c.accepted} = ${pct(c.total ? c.accepted / c.total : 0)}, left out ${c.rejected})`,
    ]),
    [
      'samples',
      `${manifest.samples.total} (${counts(manifest.samples.byPolicy)}; by scaffold: ${counts(manifest.samples.byScaffold ?? { tools: manifest.samples.total })})`,
    ],
    [
      'duplicates dropped',
      `${manifest.duplicates.sameContent} same content, ${manifest.duplicates.sameChain} same chain`,
    ],
    [
      'query leak rate',
      `${pct(manifest.leak.rate)} (${manifest.leak.leaked} of ${manifest.leak.queries}); ${manifest.leak.caught} caught and rewritten, mean score ${manifest.leak.meanScore.toFixed(3)}`,
    ],
  ];
  for (const [key, raw] of Object.entries(manifest.stats)) {
    const s = raw as DatasetStats;
    // Keys are statsKey()'s: 'model' (tools scaffold) or 'model/bash'.
    const [policy, scaffold = 'tools'] = key.split('/');
    const group = `${policy} · ${scaffold} scaffold (${s.samples})`;
    rows.push([
      `${group}: tokens (${manifest.tokenizer})`,
      `mean ${int(s.tokens.mean)} · median ${int(s.tokens.median)} · max ${int(s.tokens.max)} · ${pct(s.vsPaper.tokens)} of the paper's ${int(manifest.paper.meanTokens)}`,
    ]);
    rows.push([
      `${group}: ${scaffold === 'bash' ? 'commands' : 'tool calls'}`,
      `mean ${s.toolCalls.mean.toFixed(1)} · max ${s.toolCalls.max} · ${pct(s.vsPaper.toolCalls)} of the paper's ${manifest.paper.meanToolCalls}`,
    ]);
  }
  const table = `<table class="summary">${rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`;
  const left = manifest.rejections.length
    ? `<h3>Left out of the dataset</h3><ul class="rejections">${manifest.rejections.map((r) => `<li><b>${escapeHtml(r.chainId)}</b> (${escapeHtml(r.policy)}): ${escapeHtml(r.reason)}</li>`).join('')}</ul>`
    : '';
  return table + left;
}
