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
const pairKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);

interface Label {
  from: number;
  to: number;
  link: boolean;
}

function readLabels(short: string): Label[] | undefined {
  const path = join(LABELS_SRC, `${short}.jsonl`);
  if (!existsSync(path)) return undefined;
  return readFileSync(path, 'utf8').split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Label);
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
  const real = new Set(labels.filter((label) => label.link).map((label) => pairKey(label.from, label.to)));
  const labelled = new Set(labels.map((label) => pairKey(label.from, label.to)));
  const links = new Set(result.edges.filter((edge: Edge) => edge.confidence >= DEFAULT_MIN_CONFIDENCE).map((edge) => pairKey(edge.from, edge.to)));
  const unlabelled = [...links].filter((pair) => !labelled.has(pair));
  // A predicted link nobody labelled counts as false: the labels' candidate scan should have proposed it.
  if (unlabelled.length) say(`${short}: ${unlabelled.length} predicted links have no label, counted as false: ${unlabelled.join(' ')}`);
  const hits = [...links].filter((pair) => real.has(pair)).length;
  const missed = [...real].filter((pair) => !links.has(pair));
  const wrong = [...links].filter((pair) => labelled.has(pair) && !real.has(pair));
  say(`${short}: predicted links labelled not real: ${wrong.join(' ') || 'none'}`);
  say(`${short}: ${hits} of ${links.size} links real; missed ${missed.length} of ${real.size}: ${missed.join(' ')}`);
  const goodChains = result.chains.filter((chain) => chain.prs.slice(1).every((pr, i) => real.has(pairKey(chain.prs[i].number, pr.number))));
  const long = result.chains.filter((chain) => chain.prs.length >= 3).length;
  const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
  return [
    ...figures,
    { measure: `link_precision_${short}`, value: ratio(hits, links.size), unit: 'ratio', goal: `>= 0.95 (${hits} of ${links.size})` },
    { measure: `link_recall_${short}`, value: ratio(hits, real.size), unit: 'ratio', goal: `>= 0.8 (${hits} of ${real.size})` },
    { measure: `chain_precision_${short}`, value: ratio(goodChains.length, result.chains.length), unit: 'ratio', goal: `>= 0.9 (${goodChains.length} of ${result.chains.length})` },
    { measure: `chains_len3_per_1000_prs_${short}`, value: ratio(long * 1000, merged.size), unit: 'chains/1000 PRs', goal: `report (${long} chains of 3 or more)` },
    { measure: `prs_seen_ratio_${short}`, value: ratio(seenMerged, merged.size), unit: 'ratio', goal: `>= 0.98 (${seenMerged} of ${merged.size})` },
  ];
}
