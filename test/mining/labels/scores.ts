/**
 * Scores predicted links and chains against hand labels made on a sample of candidate pairs.
 *
 * A label row carries how it came to be labelled: `stratum` "text" or "blame" rows were drawn from
 * the independent candidate scan with probability `p` (every text pair, whole later-PR clusters of
 * blame pairs); "predicted" rows were labelled because a miner predicted them, blind all the same.
 * Rows without a stratum (older files) count as drawn with p = 1.
 *
 * - Recall uses drawn rows only, each weighted 1/p: of the real links in the scan's universe, the
 *   share the miner predicts. Rows labelled because they were predicted would inflate it.
 * - Precision: exact when every predicted link has a label; otherwise estimated from the labelled
 *   ones (drawn rows weighted 1/p, predicted-stratum rows 1), and the unlabelled count is reported.
 * - A chain holds when every link of it is labelled real; chains with an unlabelled link are left out
 *   of the ratio and counted.
 */
export interface LabelRow {
  from: number;
  to: number;
  link: boolean;
  strength?: 'strong' | 'weak' | null;
  stratum?: 'text' | 'blame' | 'predicted';
  p?: number;
}

export interface ScoreInput {
  labels: LabelRow[];
  /** Predicted links as unordered pairs. */
  links: [number, number][];
  /** Each chain's PR numbers in order. */
  chains: number[][];
}

export interface Ratio {
  value: number;
  /** Weighted numerator and denominator (equal to counts where every weight is 1). */
  hits: number;
  of: number;
  /** Items the ratio could not see: predicted links or chains with an unlabelled link. */
  unlabelled: number;
}

export interface Scores {
  precision: Ratio;
  recall: Ratio;
  chainPrecision: Ratio;
  chainPrecisionStrong: Ratio;
}

export const pairKey = (a: number, b: number) => (a < b ? `${a}-${b}` : `${b}-${a}`);
const round = (x: number) => Math.round(x * 1000) / 1000;
const ratio = (hits: number, of: number, unlabelled: number): Ratio => ({
  value: of === 0 ? 0 : round(hits / of),
  hits: round(hits),
  of: round(of),
  unlabelled,
});

export function scoreLinks({ labels, links, chains }: ScoreInput): Scores {
  const byPair = new Map(labels.map((row) => [pairKey(row.from, row.to), row]));
  const drawn = labels.filter((row) => row.stratum !== 'predicted');
  const weight = (row: LabelRow) => (row.stratum === 'predicted' ? 1 : 1 / (row.p ?? 1));
  const predicted = new Set(links.map(([a, b]) => pairKey(a, b)));

  const labelledLinks = [...predicted]
    .map((pair) => byPair.get(pair))
    .filter((row): row is LabelRow => row !== undefined);
  const allLabelled = labelledLinks.length === predicted.size;
  const w = (row: LabelRow) => (allLabelled ? 1 : weight(row));
  const precision = ratio(
    labelledLinks.filter((row) => row.link).reduce((sum, row) => sum + w(row), 0),
    labelledLinks.reduce((sum, row) => sum + w(row), 0),
    predicted.size - labelledLinks.length,
  );

  const realDrawn = drawn.filter((row) => row.link);
  const recall = ratio(
    realDrawn.filter((row) => predicted.has(pairKey(row.from, row.to))).reduce((sum, row) => sum + weight(row), 0),
    realDrawn.reduce((sum, row) => sum + weight(row), 0),
    0,
  );

  const chainRatio = (holds: (row: LabelRow) => boolean): Ratio => {
    const rows = chains.map((prs) => prs.slice(1).map((pr, i) => byPair.get(pairKey(prs[i], pr))));
    const judged = rows.filter((chain) => chain.every((row) => row !== undefined)) as LabelRow[][];
    return ratio(judged.filter((chain) => chain.every(holds)).length, judged.length, chains.length - judged.length);
  };
  return {
    precision,
    recall,
    chainPrecision: chainRatio((row) => row.link),
    chainPrecisionStrong: chainRatio((row) => row.link && row.strength === 'strong'),
  };
}
