import { scaffoldFor } from '../agent/scaffolds';
import { TrainingSampleSchema, type ChainRun, type TrainingSample, type Trajectory } from '../schemas';
import { sampleId } from './sample-id';
import { sampleTokens } from './tokens';

export interface SampleSource {
  repo: string;
  prs: number[];
  trajectory: Trajectory;
  stages: TrainingSample['metadata']['stages'];
  chainId?: string;
  workflowId?: string;
}

/**
 * One training row in OpenAI chat format: the whole conversation (system prompt, overview and stage
 * queries, every assistant and tool turn of every round, the judge's feedback turns) with the tools'
 * JSON schemas when its scaffold declares tools, plus metadata. The id depends on the content only.
 */
export function makeSample(source: SampleSource): TrainingSample {
  const { trajectory: t } = source;
  const scaffold = scaffoldFor(t.scaffold);
  const tools = scaffold.tools;
  return TrainingSampleSchema.parse({
    id: sampleId({ policy: t.policy, model: t.model, repo: source.repo, prs: source.prs, messages: t.messages }),
    messages: t.messages,
    ...(tools ? { tools } : {}),
    metadata: {
      repo: source.repo,
      prs: source.prs,
      policy: t.policy,
      scaffold: scaffold.kind,
      model: t.model,
      stages: source.stages,
      usage: t.usage,
      toolCalls: t.toolCalls,
      chainId: source.chainId,
      workflowId: source.workflowId,
      tokens: sampleTokens(t.messages, tools ?? []),
    },
  });
}

/** The sample of an accepted run: per stage its final score, its rounds and its query's leak score. */
export function sampleFromRun(run: ChainRun): TrainingSample {
  if (!run.trajectory) throw new Error(`run ${run.chainId} has no trajectory to export`);
  return makeSample({
    repo: run.repo,
    prs: run.prs,
    trajectory: run.trajectory,
    chainId: run.chainId,
    workflowId: run.workflowId,
    stages: run.stages.map((stage, i) => ({
      prNumber: stage.prNumber,
      score: stage.rounds.at(-1)?.score ?? 0,
      rounds: stage.rounds.length,
      leakScore: run.queries?.stages[i]?.leak?.score,
    })),
  });
}
