import { ServiceError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import type { ArtifactStore } from '../artifacts/store';
import { InputError } from '../errors';
import { measureLeaks } from '../queries/leak-rate';
import { templateQueries } from '../queries/template';
import {
  ChainQueriesSchema,
  ChainSchema,
  JudgementSchema,
  TrajectorySchema,
  type ChainRun,
  type RunStatus,
  type StageResult,
} from '../schemas';
import type { ChainResult, ChainWorkflowInput } from '../workflows/types';

export interface Skipped {
  workflowId: string;
  reason: string;
}

/** Closed runs only; a run that continued as new lives on in its successor. */
const FINISHED = `WorkflowType = 'chainWorkflow' AND ExecutionStatus != 'Running' AND ExecutionStatus != 'ContinuedAsNew'`;

const STATUS: Record<string, RunStatus> = {
  CANCELLED: 'cancelled',
  TERMINATED: 'failed',
  FAILED: 'failed',
  TIMED_OUT: 'failed',
};

/** The input a run started with: the first event of its history, decoded. */
async function startInput(client: Client, info: WorkflowExecutionInfo): Promise<ChainWorkflowInput> {
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: info.workflowId, runId: info.runId },
    maximumPageSize: 1,
  });
  const payload = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) throw new InputError(`workflow ${info.workflowId} has no start input`);
  return client.options.loadedDataConverter.payloadConverter.fromPayload(payload) as ChainWorkflowInput;
}

/** The rounds of each stage with what their judgements say; `thresholds` collects the pass marks they used. */
async function stagesOf(
  store: ArtifactStore,
  results: StageResult[],
  thresholds: number[],
): Promise<ChainRun['stages']> {
  return Promise.all(
    results.map(async (stage) => ({
      prNumber: stage.prNumber,
      status: stage.status,
      rounds: await Promise.all(
        stage.rounds.map(async (r) => {
          const judgement = await store.getJson(r.judgementRef, JudgementSchema);
          if (judgement.threshold !== undefined) thresholds.push(judgement.threshold);
          return {
            round: r.round,
            score: r.score,
            passed: r.passed,
            basis: judgement.basis,
            modelScore: judgement.model?.score,
            testsPassed: judgement.outcome?.passed ?? (judgement.tests?.ran ? judgement.tests.passed : undefined),
          };
        }),
      ),
    })),
  );
}

/** One finished workflow as a run record, with its conversation when it was accepted. */
async function runOf(
  client: Client,
  store: ArtifactStore,
  info: WorkflowExecutionInfo,
  threshold: number,
): Promise<ChainRun> {
  const input = await startInput(client, info);
  const result =
    info.status.name === 'COMPLETED'
      ? ((await client.workflow.getHandle(info.workflowId, info.runId).result()) as ChainResult)
      : undefined;
  // A chain cut before a stage nothing could judge ran (and is exported) as its first stages only.
  const chain = await store.getJson(result?.cut?.chainRef ?? input.chainRef, ChainSchema);
  // The workflow writes its queries; a run that ended before it finished is described by the template.
  // Queries written before the leak check existed get their leak measured here.
  const written = result?.queriesRef
    ? await store.getJson(result.queriesRef, ChainQueriesSchema)
    : templateQueries(chain);
  const queries = measureLeaks(written, chain);
  const base = {
    workflowId: info.workflowId,
    chainId: chain.id,
    repo: chain.repo.name,
    prs: chain.prs.map((pr) => pr.number),
    mergedAt: chain.prs.map((pr) => pr.mergedAt),
    policy: input.policy,
    scaffold: input.scaffold ?? 'tools',
    threshold,
    queries,
  };
  if (!result) {
    return {
      ...base,
      status: STATUS[info.status.name] ?? 'failed',
      reason: `the workflow ended ${info.status.name.toLowerCase()}`,
      stages: [],
    };
  }
  const status: RunStatus =
    result.status === 'accepted' ||
    result.status === 'rejected' ||
    result.status === 'cancelled' ||
    result.status === 'skipped'
      ? result.status
      : 'failed';
  const thresholds: number[] = [];
  const stages = await stagesOf(store, result.results, thresholds);
  const lastRound = result.results.at(-1)?.finalRound;
  const trajectory =
    status === 'accepted' && lastRound ? await store.getJson(lastRound.trajectoryRef, TrajectorySchema) : undefined;
  // The pass mark the judge applied when it ran, where it recorded one, over today's config.
  const unjudgeable = result.unjudgeable ? { unjudgeable: result.unjudgeable } : {};
  return {
    ...base,
    threshold: thresholds.length ? Math.max(...thresholds) : threshold,
    model: trajectory?.model,
    status,
    reason: result.reason,
    ...unjudgeable,
    stages,
    trajectory,
  };
}

/**
 * The finished chain runs on the Temporal server (optionally narrowed by a visibility query such as
 * `ChainRepo = "demo/tally"`), resolved from the artifact store. Runs whose artifacts are not in this
 * store (another data directory) are skipped and reported; an artifact that fails its schema stops the
 * collection with the workflow named.
 */
export async function collectRuns(
  client: Client,
  store: ArtifactStore,
  opts: { query?: string; threshold: number },
): Promise<{ runs: ChainRun[]; skipped: Skipped[] }> {
  const runs: ChainRun[] = [];
  const skipped: Skipped[] = [];
  const query = opts.query ? `${FINISHED} AND (${opts.query})` : FINISHED;
  try {
    for await (const info of client.workflow.list({ query })) {
      try {
        runs.push(await runOf(client, store, info, opts.threshold));
      } catch (err) {
        const message = (err as Error).message;
        if (err instanceof InputError && / is missing from /.test(message))
          skipped.push({ workflowId: info.workflowId, reason: message });
        else throw new InputError(`workflow ${info.workflowId}: ${message}`, { cause: err });
      }
    }
  } catch (err) {
    throw queryRefused(err, opts.query) ?? err;
  }
  return { runs, skipped };
}

/** gRPC's status code for a request the server refuses as malformed. */
const GRPC_INVALID_ARGUMENT = 3;

/** A visibility query the server refuses (gRPC INVALID_ARGUMENT), as the user's input error; else undefined. */
function queryRefused(err: unknown, query: string | undefined): InputError | undefined {
  const cause = (err as { cause?: { code?: number; details?: string } }).cause;
  if (query === undefined || !(err instanceof ServiceError) || cause?.code !== GRPC_INVALID_ARGUMENT) return undefined;
  return new InputError(
    `--query "${query}" is not a query Temporal accepts: ${cause.details ?? (err as Error).message}`,
    { cause: err },
  );
}
