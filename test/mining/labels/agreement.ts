import { pairKey, type LabelRow } from './scores';

/**
 * How far two blind labellers agree on the same pairs. The first labels are the ones the miner is
 * scored against; the second were made later, by another reader of the same dossiers (both PRs'
 * texts and diffs) who never saw the first. If the readers disagree on one pair in five, a precision
 * of 0.95 cannot be told apart from 0.8, whatever the miner does.
 */
export interface Agreement {
  /** Pairs both labellers labelled. */
  pairs: number;
  /** Share of those pairs with the same link/no-link verdict. */
  link: number;
  /** Cohen's kappa on the link verdict: agreement beyond what the two readers' base rates give by chance. */
  kappa: number;
  /** Of the pairs both call links, the share with the same strength. */
  strength: number;
  /** Of the pairs the first labeller calls links, the share the second calls links too. */
  linksConfirmed: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function agreement(first: LabelRow[], second: LabelRow[]): Agreement {
  const firstByPair = new Map(first.map((row) => [pairKey(row.from, row.to), row]));
  const both = second.flatMap((row) => {
    const other = firstByPair.get(pairKey(row.from, row.to));
    return other ? [[other, row] as const] : [];
  });
  const n = both.length;
  if (n === 0) return { pairs: 0, link: 0, kappa: 0, strength: 0, linksConfirmed: 0 };
  const same = both.filter(([a, b]) => a.link === b.link).length;
  const yesFirst = both.filter(([a]) => a.link).length / n;
  const yesSecond = both.filter(([, b]) => b.link).length / n;
  const chance = yesFirst * yesSecond + (1 - yesFirst) * (1 - yesSecond);
  const observed = same / n;
  const bothLinks = both.filter(([a, b]) => a.link && b.link);
  const firstLinks = both.filter(([a]) => a.link);
  return {
    pairs: n,
    link: round(observed),
    kappa: chance === 1 ? (observed === 1 ? 1 : 0) : round((observed - chance) / (1 - chance)),
    strength:
      bothLinks.length === 0
        ? 0
        : round(bothLinks.filter(([a, b]) => a.strength === b.strength).length / bothLinks.length),
    linksConfirmed: firstLinks.length === 0 ? 0 : round(bothLinks.length / firstLinks.length),
  };
}
