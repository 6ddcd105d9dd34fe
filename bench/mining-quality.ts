import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { git } from '../src/git';
import { readLocalPullRequests } from '../src/mining/local-git';
import { recordsToChains } from '../src/mining/pipeline';
import { DEFAULT_MIN_CONFIDENCE } from '../src/mining/chains';
import type { Edge } from '../src/schemas';
import { mergedPullNumbers } from '../test/mining/labels/merged-prs';
import type { Figure } from './figure';
import { pairKey, scoreLinks, type LabelRow, type Ratio } from '../test/mining/labels/scores';

const REPOS = resolve(__dirname, '..', '..', '..', 'shared', 'repos');
const SHARED = existsSync(REPOS) ? REPOS : resolve(process.cwd(), '..', 'shared', 'repos');
const LABELS = resolve(__dirname, '..', '..', 'test', 'mining', 'labels');
const LABELS_SRC = existsSync(LABELS) ? LABELS : resolve(process.cwd(), 'test', 'mining', 'labels');

/** bundle → short name used in measure names. */
const BUNDLES: [string, string][] = [
  ['pallets+jinja', 'jinja'],
  ['serde-rs+json', 'json'],
  ['spf13+cobra', 'cobra'],
  ['jhy+jsoup', 'jsoup'],
  ['DaveGamble+cJSON', 'cjson'],
];

const say = (line: string) => console.error(`[mining-quality] ${line}`);
const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
const describe = (r: Ratio, what: string) => `${r.hits} of ${r.of} ${what}${r.unlabelled ? `; ${r.unlabelled} not labelled, left out` : ''}`;

function readLabels(short: string): LabelRow[] | undefined {
  const path = join(LABELS_SRC, `${short}.jsonl`);
  if (!existsSync(path)) return undefined;
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as LabelRow);
}

/**
 * Mines the five bundled repositories as a user would (local clone with pull refs, default options)
 * and scores the links and chains against the hand labels where there are labels. A link is an edge
 * at or above the confidence chains are built on; pairs count regardless of direction.
 */
export async function run(): Promise<Figure[]> {
  if (!existsSync(SHARED)) {
    say(`no bundled repositories at ${SHARED}: nothing to measure`);
    return [];
  }
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-quality-'));
  const figures: Figure[] = [];
  try {
    for (const [bundle, short] of BUNDLES) {
      const file = join(SHARED, `${bundle}.bundle`);
      if (!existsSync(file)) continue;
      const clone = join(root, short);
      await git(root, ['clone', '-q', file, clone]);
      await git(clone, ['fetch', '-q', file, '+refs/pull/*:refs/pull/*']);
      figures.push(...(await measure(clone, bundle.replace('+', '/'), short)));
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}

async function measure(clone: string, name: string, short: string): Promise<Figure[]> {
  const started = Date.now();
  const mined = await readLocalPullRequests(clone);
  const result = await recordsToChains({ name, path: clone }, mined.prs, async (prs) => prs.map((pr) => ({ ...pr, patch: '' })), {
    repo: name,
    pullNumbers: mined.pullNumbers,
    clone,
  });
  const merged = await mergedPullNumbers(clone);
  const seen = new Set(mined.prs.map((pr) => pr.number));
  const seenMerged = [...merged].filter((n) => seen.has(n)).length;
  say(`${short}: ${mined.prs.length} PRs seen (${seenMerged} of ${merged.size} merged by the pull-ref rule), ${result.edges.length} edges, ${result.chains.length} chains in ${Math.round((Date.now() - started) / 1000)}s`);
  const figures: Figure[] = [{ measure: `prs_seen_${short}`, value: mined.prs.length, unit: 'PRs', goal: `report (${merged.size} merged by the pull-ref rule)` }];
  for (const [kind, count] of Object.entries(result.summary.edgesByKind)) {
    if (count > 0) figures.push({ measure: `edges_${kind}_${short}`, value: count, unit: 'edges', goal: 'report' });
  }
  for (const [length, count] of Object.entries(result.summary.chainsByLength)) {
    figures.push({ measure: `chains_len${length}_${short}`, value: count, unit: 'chains', goal: 'report' });
  }

  const labels = readLabels(short);
  if (!labels) return figures;
  const links = result.edges.filter((edge: Edge) => edge.confidence >= DEFAULT_MIN_CONFIDENCE);
  const scores = scoreLinks({ labels, links: links.map((edge) => [edge.from, edge.to]), chains: result.chains.map((chain) => chain.prs.map((pr) => pr.number)) });
  const byPair = new Map(labels.map((label) => [pairKey(label.from, label.to), label]));
  // Labels are a sample: a predicted link outside it is unknown, not false (test/mining/labels/scores.ts).
  const unlabelled = links.filter((edge) => !byPair.has(pairKey(edge.from, edge.to))).map((edge) => pairKey(edge.from, edge.to));
  const missed = labels.filter((label) => label.link && label.stratum !== 'predicted' && !links.some((edge) => pairKey(edge.from, edge.to) === pairKey(label.from, label.to)));
  const wrong = links.filter((edge) => byPair.get(pairKey(edge.from, edge.to))?.link === false).map((edge) => pairKey(edge.from, edge.to));
  say(`${short}: ${unlabelled.length} predicted links have no label: ${unlabelled.join(' ')}`);
  say(`${short}: predicted links labelled not real: ${wrong.join(' ') || 'none'}`);
  say(`${short}: missed labelled links: ${missed.map((label) => pairKey(label.from, label.to)).join(' ') || 'none'}`);
  const long = result.chains.filter((chain) => chain.prs.length >= 3).length;
  return [
    ...figures,
    { measure: `link_precision_${short}`, value: scores.precision.value, unit: 'ratio', goal: `>= 0.95 (${describe(scores.precision, 'predicted links')})` },
    { measure: `link_recall_${short}`, value: scores.recall.value, unit: 'ratio', goal: `>= 0.8 (${describe(scores.recall, 'real links, weighted by 1/p')})` },
    { measure: `chain_precision_${short}`, value: scores.chainPrecision.value, unit: 'ratio', goal: `>= 0.9 (${describe(scores.chainPrecision, 'chains')}, weak links count as real)` },
    { measure: `chain_precision_strong_${short}`, value: scores.chainPrecisionStrong.value, unit: 'ratio', goal: `>= 0.7 (${describe(scores.chainPrecisionStrong, 'chains')}, only strong links count)` },
    { measure: `chains_len3_per_1000_prs_${short}`, value: ratio(long * 1000, merged.size), unit: 'chains/1000 PRs', goal: `report (${long} chains of 3 or more)` },
    { measure: `prs_seen_ratio_${short}`, value: ratio(seenMerged, merged.size), unit: 'ratio', goal: `>= 0.98 (${seenMerged} of ${merged.size})` },
  ];
}
