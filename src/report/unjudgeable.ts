import { byKind } from '../judge/funnel';
import type { ChainRun, StageReasonKind } from '../schemas';
import { escapeHtml } from './html';

/**
 * The stages gold validation found nothing could judge, one per chain run that has one (the chain was
 * cut before it, or skipped), counted by kind and each with its reason whole: the command that failed,
 * its exit code and the last lines of its output.
 */
export function unjudgeableHtml(runs: ChainRun[]): string {
  const cut = runs.filter((r) => r.unjudgeable);
  if (!cut.length) return '';
  const counts: Partial<Record<StageReasonKind, number>> = {};
  for (const r of cut) counts[r.unjudgeable!.reason.kind] = (counts[r.unjudgeable!.reason.kind] ?? 0) + 1;
  const items = cut.map((run) => {
    const { stage, prNumber, reason } = run.unjudgeable!;
    const where = `${run.chainId} (${run.policy}), stage ${stage + 1}, PR #${prNumber}`;
    const command = reason.command
      ? `<code>$ ${escapeHtml(reason.command)}</code>${reason.exitCode !== undefined ? ` (exit ${reason.exitCode})` : ''}`
      : '';
    const tail = reason.tail ? `<pre>${escapeHtml(reason.tail)}</pre>` : '';
    return `<li><b>${escapeHtml(where)}</b>: ${escapeHtml(reason.kind)}: ${escapeHtml(reason.summary)}${command ? `<br>${command}` : ''}${tail}</li>`;
  });
  return `<h3>Stages nothing could judge (${escapeHtml(byKind(counts))})</h3><ul class="unjudgeable">${items.join('')}</ul>`;
}
