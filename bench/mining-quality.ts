import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { git } from '../src/git';
import { readLocalPullRequests } from '../src/mining/landings/local-git';
import { recordsToChains } from '../src/mining/pipeline';
import { linkingEdges } from '../src/mining/chains/chains';
import { mergedPullNumbers } from '../test/mining/labels/merged-prs';
import { pairKey, scoreLinks, type LabelRow, type Ratio } from '../test/mining/labels/scores';
import type { Figure } from './figure';
import { whyNoEdge } from './support/missed-link';

const REPOS = resolve(__dirname, '..', '..', '..', 'shared', 'repos');
const SHARED = existsSync(REPOS) ? REPOS : resolve(process.cwd(), '..', 'shared', 'repos');
const LABELS = resolve(__dirname, '..', '..', 'test', 'mining', 'labels');
const LABELS_SRC = existsSync(LABELS) ? LABELS : resolve(process.cwd(), 'test', 'mining', 'labels');

/**
 * bundle → short name used in measure names, and whether the miner is tuned on it. Report-only
 * repositories print figures alone: whoever changes the miner must not read their pairs.
 */
const BUNDLES: { bundle: string; short: string; tuning: boolean }[] = [
  { bundle: 'serde-rs+json', short: 'json', tuning: false },
  { bundle: 'spf13+cobra', short: 'cobra', tuning: false },
  { bundle: 'jhy+jsoup', short: 'jsoup', tuning: false },
  { bundle: 'pallets+jinja', short: 'jinja', tuning: true },
  { bundle: 'DaveGamble+cJSON', short: 'cjson', tuning: true },
];

const say = (line: string) => console.error(`[mining-quality] ${line}`);
const ratio = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
const describe = (r: Ratio, what: string) =>
  `${r.hits} of ${r.of} ${what}${r.unlabelled ? `; ${r.unlabelled} not labelled, left out` : ''}`;

function readLabels(short: string): LabelRow[] | undefined {
  const path = join(LABELS_SRC, `${short}.jsonl`);
  if (!existsSync(path)) return undefined;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as LabelRow);
}

/**
 * Mines the bundled repositories as a user would (local clone with pull refs, default options) and
 * scores the links and chains against the hand labels where there are labels. A link is an edge
 * sure enough to build chains on, of any strength; pairs count regardless of direction. `npm run bench -- mining-quality jinja,cjson`
 * measures only the named repositories (the whole run blames five histories).
 */
export async function run(): Promise<Figure[]> {
  if (!existsSync(SHARED)) {
    say(`no bundled repositories at ${SHARED}: nothing to measure`);
    return [];
  }
  const only = process.argv[3]?.split(',').filter(Boolean);
  const unknown = (only ?? []).filter((short) => !BUNDLES.some((b) => b.short === short));
  if (unknown.length)
    throw new Error(`no repository named ${unknown.join(', ')} (known: ${BUNDLES.map((b) => b.short).join(', ')})`);
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-bench-quality-'));
  const figures: Figure[] = [];
  try {
    for (const { bundle, short, tuning } of BUNDLES) {
      const file = join(SHARED, `${bundle}.bundle`);
      if ((only && !only.includes(short)) || !existsSync(file)) continue;
      const clone = join(root, short);
      await git(root, ['clone', '-q', file, clone]);
      await git(clone, ['fetch', '-q', file, '+refs/pull/*:refs/pull/*']);
      figures.push(...(await measure(clone, bundle.replace('+', '/'), short, tuning)));
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}

async function measure(clone: string, name: string, short: string, tuning: boolean): Promise<Figure[]> {
  const started = Date.now();
  const mined = await readLocalPullRequests(clone);
  const result = await recordsToChains(
    { name, path: clone },
    mined.prs,
    async (prs) => prs.map((pr) => ({ ...pr, patch: '' })),
    {
      repo: name,
      pullNumbers: mined.pullNumbers,
      clone,
    },
  );
  const merged = await mergedPullNumbers(clone);
  const seen = new Set(mined.prs.map((pr) => pr.number));
  const seenMerged = [...merged].filter((n) => seen.has(n)).length;
  say(
    `${short}: ${mined.prs.length} PRs seen (${seenMerged} of ${merged.size} merged by the pull-ref rule), ${result.edges.length} edges, ${result.chains.length} chains in ${Math.round((Date.now() - started) / 1000)}s`,
  );
  const figures: Figure[] = [
    {
      measure: `prs_seen_${short}`,
      value: mined.prs.length,
      unit: 'PRs',
      goal: `report (${merged.size} merged by the pull-ref rule)`,
    },
  ];
  const funnel: Record<string, number> = result.summary.funnel ?? {};
  const linksByKind: Record<string, Record<string, number>> = result.summary.linksByKind ?? {};
  for (const [stage, count] of Object.entries(funnel))
    figures.push({ measure: `funnel_${stage}_${short}`, value: count, unit: 'PRs', goal: 'report' });
  for (const [kind, byStrength] of Object.entries(linksByKind)) {
    for (const [strength, count] of Object.entries(byStrength))
      if (count > 0)
        figures.push({ measure: `links_${kind}_${strength}_${short}`, value: count, unit: 'edges', goal: 'report' });
  }
  for (const [length, count] of Object.entries(result.summary.chainsByLength))
    figures.push({ measure: `chains_len${length}_${short}`, value: count, unit: 'chains', goal: 'report' });

  const labels = readLabels(short);
  const long = result.chains.filter((chain) => chain.prs.length >= 3).length;
  figures.push({
    measure: `chains_len3_per_1000_prs_${short}`,
    value: ratio(long * 1000, merged.size),
    unit: 'chains/1000 PRs',
    goal: `report (${long} chains of 3 or more)`,
  });
  figures.push({
    measure: `prs_seen_ratio_${short}`,
    value: ratio(seenMerged, merged.size),
    unit: 'ratio',
    goal: `>= 0.98 (${seenMerged} of ${merged.size})`,
  });
  if (!labels) return figures;
  // Every link the miner asserts, weak ones too (labels count weak links as real); chains are built
  // with the default strength.
  const links = linkingEdges(result.edges, { minStrength: 'weak' });
  // Pairs to label blind as stratum "predicted" (test/mining/labels/README.md): written, not printed.
  const linksOut = process.env.CHAINSMITH_BENCH_LINKS_OUT;
  if (linksOut) {
    mkdirSync(linksOut, { recursive: true });
    writeFileSync(
      join(linksOut, `${short}.jsonl`),
      links.map((edge) => JSON.stringify({ from: edge.from, to: edge.to })).join('\n') + '\n',
    );
  }
  const scores = scoreLinks({
    labels,
    links: links.map((edge) => [edge.from, edge.to]),
    chains: result.chains.map((chain) => chain.prs.map((pr) => pr.number)),
  });
  if (tuning) {
    const byPair = new Map(labels.map((label) => [pairKey(label.from, label.to), label]));
    const predicted = new Set(links.map((edge) => pairKey(edge.from, edge.to)));
    // Labels are a sample: a predicted link outside it is unknown, not false (test/mining/labels/scores.ts).
    const unlabelled = [...predicted].filter((pair) => !byPair.has(pair));
    const records = new Map(mined.prs.map((pr) => [pr.number, pr]));
    const missed = labels.filter(
      (label) => label.link && label.stratum !== 'predicted' && !predicted.has(pairKey(label.from, label.to)),
    );
    const wrong = [...predicted].filter((pair) => byPair.get(pair)?.link === false);
    const evidence = new Map(
      result.edges.map((edge) => [
        pairKey(edge.from, edge.to),
        `${edge.kind}/${edge.strength} ${edge.confidence}: ${edge.evidence.slice(0, 160)}`,
      ]),
    );
    const label = (pair: string) => {
      const row = byPair.get(pair);
      return row
        ? `[label ${row.link ? (row.strength ?? 'link') : 'no link'}${row.stratum ? `, ${row.stratum} p=${row.p}` : ''}]`
        : '[no label]';
    };
    say(
      `${short}: ${unlabelled.length} predicted links have no label: ${unlabelled.map((pair) => `${pair} ${evidence.get(pair)}`).join(' | ')}`,
    );
    for (const pair of wrong) say(`${short}: wrong ${pair} ${label(pair)} ${evidence.get(pair)}`);
    for (const row of missed) {
      const pair = pairKey(row.from, row.to);
      say(
        `${short}: missed ${pair} ${label(pair)} (${evidence.has(pair) ? `below the bar: ${evidence.get(pair)}` : `no edge: ${whyNoEdge(records, row.from, row.to)}`})`,
      );
    }
    // Which evidence makes the links that hold: labelled predicted links per kind and strength (tuning only).
    const byKind = new Map<string, [number, number]>();
    for (const edge of links) {
      const row = byPair.get(pairKey(edge.from, edge.to));
      if (!row) continue;
      const key = `${edge.kind}_${edge.strength ?? 'strong'}`;
      const [hits, of] = byKind.get(key) ?? [0, 0];
      byKind.set(key, [hits + (row.link ? 1 : 0), of + 1]);
    }
    for (const [key, [hits, of]] of byKind)
      figures.push({
        measure: `link_precision_by_kind_${key}_${short}`,
        value: ratio(hits, of),
        unit: 'ratio',
        goal: `report (${hits} of ${of} labelled predicted links)`,
      });
    for (const chain of result.chains) {
      const verdicts = chain.prs.slice(1).map((pr, i) => label(pairKey(chain.prs[i].number, pr.number)));
      say(`${short}: chain ${chain.prs.map((pr) => pr.number).join('-')} ${chain.strength} ${verdicts.join(' ')}`);
    }
  }
  return [
    ...figures,
    {
      measure: `link_precision_${short}`,
      value: scores.precision.value,
      unit: 'ratio',
      goal: `>= 0.95 (${describe(scores.precision, 'predicted links')})`,
    },
    {
      measure: `link_recall_${short}`,
      value: scores.recall.value,
      unit: 'ratio',
      goal: `>= 0.8 (${describe(scores.recall, 'real links, weighted by 1/p')})`,
    },
    {
      measure: `chain_precision_${short}`,
      value: scores.chainPrecision.value,
      unit: 'ratio',
      goal: `>= 0.9 (${describe(scores.chainPrecision, 'chains')}, weak links count as real)`,
    },
    {
      measure: `chain_precision_strong_${short}`,
      value: scores.chainPrecisionStrong.value,
      unit: 'ratio',
      goal: `>= 0.7 (${describe(scores.chainPrecisionStrong, 'chains')}, only strong links count)`,
    },
  ];
}
