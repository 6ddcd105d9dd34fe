import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { agreement } from '../test/mining/labels/agreement';
import type { LabelRow } from '../test/mining/labels/scores';
import type { Figure } from './figure';

const LABELS = resolve(__dirname, '..', '..', 'test', 'mining', 'labels');
const LABELS_SRC = existsSync(LABELS) ? LABELS : resolve(process.cwd(), 'test', 'mining', 'labels');
const REPOS = ['json', 'cobra', 'jsoup', 'jinja', 'cjson'];

const read = (path: string): LabelRow[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => JSON.parse(line) as LabelRow)
    : [];

/**
 * Agreement of the second blind labeller (test/mining/labels/second/) with the labels the miner is
 * scored against, per repository and pooled: how far the labels themselves can be trusted. Only
 * figures are printed, never pairs (three of the repositories are report-only).
 */
export async function run(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const pooled: [LabelRow[], LabelRow[]] = [[], []];
  for (const repo of REPOS) {
    const first = read(join(LABELS_SRC, `${repo}.jsonl`));
    const second = read(join(LABELS_SRC, 'second', `${repo}.jsonl`));
    if (second.length === 0) continue;
    pooled[0].push(...first.map((row) => ({ ...row, from: row.from + offset(repo), to: row.to + offset(repo) })));
    pooled[1].push(...second.map((row) => ({ ...row, from: row.from + offset(repo), to: row.to + offset(repo) })));
    const predicted = first.filter((row) => row.stratum === 'predicted');
    figures.push(...describe(repo, agreement(first, second), agreement(predicted, second)));
  }
  if (pooled[1].length)
    figures.push(
      ...describe(
        'all',
        agreement(...pooled),
        agreement(
          pooled[0].filter((row) => row.stratum === 'predicted'),
          pooled[1],
        ),
      ),
    );
  return figures;
}

/** Keeps PR numbers of different repositories apart when pooling. */
const offset = (repo: string) => (REPOS.indexOf(repo) + 1) * 1_000_000;

function describe(repo: string, all: ReturnType<typeof agreement>, predicted: ReturnType<typeof agreement>): Figure[] {
  return [
    {
      measure: `label_kappa_${repo}`,
      value: all.kappa,
      unit: 'kappa',
      goal: `>= 0.6, else the labels cannot tell a precision of 0.95 from 0.8 (${all.pairs} pairs labelled twice)`,
    },
    {
      measure: `label_link_agreement_${repo}`,
      value: all.link,
      unit: 'ratio',
      goal: `report (same link verdict on ${all.pairs} pairs)`,
    },
    {
      measure: `label_links_confirmed_${repo}`,
      value: all.linksConfirmed,
      unit: 'ratio',
      goal: "report (of the first labels' links, the share the second reader also calls links)",
    },
    {
      measure: `label_strength_agreement_${repo}`,
      value: all.strength,
      unit: 'ratio',
      goal: 'report (same strength where both call it a link)',
    },
    {
      measure: `label_predicted_confirmed_${repo}`,
      value: predicted.linksConfirmed,
      unit: 'ratio',
      goal: `report (links the miner predicted and the first reader confirmed, ${predicted.pairs} pairs: the share the second reader also calls links)`,
    },
  ];
}
