import type { Config } from '../config';
import { describeWindow } from '../date-window';
import { describeJudging } from '../mining/links/link-judge/report';
import { companionPaths, mineToFiles, type MineToFilesOptions } from '../mining/output/mine-to-files';
import type { MiningSummary } from '../mining/summary';
import type { Chain } from '../schemas';
import { progressBar } from './progress-bar';

interface MineCommandOptions extends Omit<MineToFilesOptions, 'onProgress' | 'beforeWrite'> {
  judgeLinks?: boolean;
}

/** `chainsmith mine`: the mine into files, a progress bar while it runs, and what it found. */
export async function mineCommand(
  config: Config,
  opts: MineCommandOptions,
  say: (line: string) => void = console.log,
): Promise<void> {
  // The model client loads only for a mine that asks it.
  const judge = opts.judgeLinks
    ? (await import('../mining/links/link-judge/from-config')).linkJudgeFromConfig(config)
    : undefined;
  const bar = progressBar();
  let result;
  try {
    result = await mineToFiles({ ...opts, onProgress: bar.listener }, { dataDir: config.dataDir, judge });
  } finally {
    bar.stop();
  }
  const { unchangedSince: since } = result;
  if (since)
    say(
      `nothing new since the last mine into ${opts.out} (${since.head?.slice(0, 12)}, last merge ${since.lastMergedAt ?? 'none'})`,
    );
  else for (const line of describeMine(result.summary, result.chains, opts.out)) say(line);
}

/** The end of a mine: counts, the funnel, where each file went, and the chains it added. */
function describeMine(summary: MiningSummary, chains: Chain[], out: string): string[] {
  const paths = companionPaths(out);
  const lines: string[] = [];
  const dropped = Object.entries(summary.dropped)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${n} ${why}`);
  const strengths = (kind: string) => {
    const counts = summary.linksByKind?.[kind as keyof typeof summary.edgesByKind];
    return counts ? ` (${counts.strong} strong, ${counts.weak} weak)` : '';
  };
  const kinds = Object.entries(summary.edgesByKind)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}${strengths(kind)}`);
  const lengths = Object.entries(summary.chainsByLength).map(([length, n]) => `${n}×${length}`);
  const requests =
    summary.requests === undefined
      ? ''
      : `; ${summary.requests} GitHub requests, ${summary.cacheHits} answers from the cache`;
  lines.push(
    `mined ${summary.prsSeen} PRs (${summary.prsEligible} eligible${dropped.length ? `; left out ${dropped.join(', ')}` : ''})${requests}`,
  );
  lines.push(
    `edges: ${kinds.join(', ') || 'none'}; references to issues ${summary.references.issue}, unmerged PRs ${summary.references.unmergedPr}, other repositories ${summary.references.otherRepo} (not linked)`,
  );
  if (summary.dates) {
    const { chainsLeftOut, chainsShortened } = summary.dates;
    lines.push(
      `dates: ${describeWindow(summary.dates)}; ${chainsLeftOut} chain(s) reaching outside left out, ${chainsShortened} kept as their inside part`,
    );
  }
  const { funnel, chainsByStrength } = summary;
  if (funnel)
    lines.push(
      `funnel: ${funnel.merged} merged → ${funnel.eligible} eligible → ${funnel.linked} linked → ${funnel.inChains} in chains`,
    );
  const tested =
    summary.chainsWithTests === undefined ? '' : `; ${summary.chainsWithTests} with a test change in every stage`;
  const strong = chainsByStrength ? `; ${chainsByStrength.strong} strong, ${chainsByStrength.weak} weak` : '';
  lines.push(
    `${chains.length} chains${lengths.length ? ` (${lengths.join(', ')} PRs${strong}${tested})` : ''} → ${out}; PR records → ${paths.prs}; edges → ${paths.edges}; summary → ${paths.summary}`,
  );
  if (summary.linkJudge) lines.push(describeJudging(summary.linkJudge));
  const grown = summary.incremental;
  if (grown) {
    lines.push(
      `since the last mine (last merge ${grown.since ?? 'none'}): ${grown.newPrs} new PRs, ${grown.newEdges} new edges, ${grown.chainsAdded} new chains (${grown.chainsExtended} grown from an earlier one); cursor → ${paths.cursor}`,
    );
  }
  // After a rerun only the chains it added are listed; the earlier ones are in the file as they were.
  for (const c of grown ? chains.slice(chains.length - grown.chainsAdded) : chains)
    lines.push(
      `  ${c.id}: ${c.prs.map((p) => `#${p.number}`).join(' → ')}  score ${c.score}${c.strength ? `, ${c.strength}` : ''}`,
    );
  return lines;
}
