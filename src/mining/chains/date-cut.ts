import { inWindow, type DateWindow } from '../../date-window';

type Members = { prs: readonly { number: number; mergedAt: string }[] };

/**
 * What a date window did to the chains: `leftOut` counts the chains the same mine gives without the
 * window that have a PR outside it; `shortened`, the chains kept that are the inside part of one of those.
 */
export function dateCut(
  window: DateWindow,
  undated: readonly Members[],
  dated: readonly Members[],
): { chainsLeftOut: number; chainsShortened: number } {
  const leftOut = undated.filter((chain) => chain.prs.some((pr) => !inWindow(window, pr.mergedAt)));
  const sets = leftOut.map((chain) => new Set(chain.prs.map((pr) => pr.number)));
  const shortened = dated.filter((chain) => sets.some((set) => chain.prs.every((pr) => set.has(pr.number))));
  return { chainsLeftOut: leftOut.length, chainsShortened: shortened.length };
}
