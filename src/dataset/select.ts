import type { ChainRun } from '../schemas';

export interface Rejection {
  chainId: string;
  workflowId?: string;
  policy: string;
  status: string;
  reason: string;
}

/** Why a run yields no sample, or undefined when every stage's last verdict passed. */
export function rejectionReason(run: ChainRun): string | undefined {
  if (run.status !== 'accepted') return run.reason ?? `the chain ended ${run.status}`;
  if (run.stages.length !== run.prs.length) return `only ${run.stages.length} of ${run.prs.length} stages were judged`;
  for (const [i, stage] of run.stages.entries()) {
    const last = stage.rounds.at(-1);
    const label = `stage ${i + 1} (PR #${stage.prNumber})`;
    if (!last) return `${label} has no verdict`;
    // The verdicts decide, not the status alone: a run marked accepted with a failing last verdict is not kept.
    if (!last.passed || last.score < run.threshold)
      return `${label}: last verdict ${last.score.toFixed(2)} is below ${run.threshold}`;
  }
  return undefined;
}

/**
 * Rejection sampling: only chains whose every stage was accepted by the judge become training data.
 * (Without this filter the paper's model fell from 0.405 to 0.205 on average.)
 */
export function rejectionSample(runs: ChainRun[]): { accepted: ChainRun[]; rejected: Rejection[] } {
  const accepted: ChainRun[] = [];
  const rejected: Rejection[] = [];
  for (const run of runs) {
    const reason = rejectionReason(run);
    if (reason === undefined) accepted.push(run);
    else
      rejected.push({
        chainId: run.chainId,
        workflowId: run.workflowId,
        policy: run.policy,
        status: run.status,
        reason,
      });
  }
  return { accepted, rejected };
}
