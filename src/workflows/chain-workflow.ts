import { ApplicationFailure, proxyActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ArtifactRef, StageResult } from '../schemas';
import {
  ChainLength,
  ChainRepo,
  ChainStage,
  ChainStatusKey,
  progressQuery,
  type ChainProgress,
  type ChainResult,
  type ChainStatus,
  type ChainWorkflowInput,
} from './messages';
import { sandboxQueue } from './task-queues';
import { EXPORT, JUDGE, ROLLOUT } from './timeouts';

const { judgeStage } = proxyActivities<Activities>(JUDGE);
const { exportSample } = proxyActivities<Activities>(EXPORT);

/**
 * One PR chain, stage by stage: roll out, judge, refine with the judge's feedback (at most
 * maxRefinements more rounds), accept or reject. The agent's own cumulative patch carries into the
 * next stage. History holds artifact references only; transcripts and patches stay in the store.
 */
export async function chainWorkflow(input: ChainWorkflowInput): Promise<ChainResult> {
  const progress: ChainProgress = { status: 'running', stage: 0, stages: input.prNumbers.length, round: 0, results: [] };
  setHandler(progressQuery, () => progress);
  const { rolloutRound } = proxyActivities<Activities>({ ...ROLLOUT, taskQueue: sandboxQueue(workflowInfo().taskQueue) });
  const runKey = `${workflowInfo().workflowId}/${workflowInfo().runId}`;
  const mark = (status: ChainStatus) => {
    progress.status = status;
    upsertSearchAttributes([{ key: ChainStatusKey, value: status }, { key: ChainStage, value: progress.stage + 1 }]);
  };
  upsertSearchAttributes([
    { key: ChainRepo, value: input.repo },
    { key: ChainLength, value: input.prNumbers.length },
  ]);

  let conversationRef: ArtifactRef | undefined;
  let carryPatchRef: ArtifactRef | undefined;
  for (let stage = 0; stage < input.prNumbers.length; stage++) {
    progress.stage = stage;
    mark('running');
    const result: StageResult = { prNumber: input.prNumbers[stage], status: 'running', rounds: [] };
    progress.results.push(result);
    let progressPatchRef: ArtifactRef | undefined;
    let feedbackRef: ArtifactRef | undefined;
    for (let round = 0; round <= input.maxRefinements && result.status === 'running'; round++) {
      progress.round = round;
      let r;
      try {
        r = await rolloutRound({
          runKey, chainRef: input.chainRef, queriesRef: input.queriesRef, policy: input.policy,
          stage, round, conversationRef, carryPatchRef, progressPatchRef, feedbackRef,
        });
      } catch (err) {
        result.status = 'failed';
        return finish('failed', `stage ${stage + 1} (PR #${result.prNumber}) failed: ${failureMessage(err)}`);
      }
      result.carry = r.carry;
      result.finalRound = r;
      const verdict = await judgeStage({
        chainRef: input.chainRef, queriesRef: input.queriesRef, stage, policy: input.policy,
        stagePatchRef: r.stagePatchRef, testsAfterRef: r.testsAfterRef,
      });
      result.rounds.push({ round, score: verdict.score, passed: verdict.passed, judgementRef: verdict.judgementRef });
      conversationRef = r.trajectoryRef;
      progressPatchRef = r.stagePatchRef;
      feedbackRef = verdict.judgementRef;
      if (verdict.passed) {
        result.status = 'accepted';
        carryPatchRef = r.cumulativePatchRef;
      }
    }
    if (result.status !== 'accepted') {
      result.status = 'rejected';
      const rounds = result.rounds.length;
      return finish('rejected', `stage ${stage + 1} (PR #${result.prNumber}) was rejected after ${rounds} round${rounds > 1 ? 's' : ''} (last score ${result.rounds[rounds - 1].score.toFixed(2)})`);
    }
  }

  const exported = await exportSample({
    chainRef: input.chainRef,
    trajectoryRef: conversationRef!,
    stages: progress.results.map((s) => ({ prNumber: s.prNumber, score: s.rounds[s.rounds.length - 1].score, rounds: s.rounds.length })),
  });
  return { ...finish('accepted'), sampleId: exported.sampleId, datasetPath: exported.path };

  function finish(status: ChainStatus, reason?: string): ChainResult {
    progress.reason = reason;
    mark(status);
    return { ...progress };
  }
}

function failureMessage(err: unknown): string {
  let e: any = err;
  while (e?.cause && !(e instanceof ApplicationFailure)) e = e.cause;
  return e?.message ?? String(err);
}
