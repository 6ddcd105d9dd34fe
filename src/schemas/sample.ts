import { z } from 'zod';
import { StageReasonSchema } from './stage-reason';
import { ChainQueriesSchema } from './query';
import { MessageSchema, PolicyKind, ScaffoldKind, TrajectorySchema, UsageSchema } from './trajectory';

/** Tokens of a sample as counted by a real tokenizer (src/dataset/tokens.ts). */
export const SampleTokensSchema = z.object({
  total: z.number().int().nonnegative(),
  /** What the model writes: assistant text and tool-call arguments (the trained-on tokens). */
  assistant: z.number().int().nonnegative(),
  /** The tool declarations, counted once (0 for a bash-scaffold row, which declares none). */
  tools: z.number().int().nonnegative(),
  tokenizer: z.string(),
});
export type SampleTokens = z.infer<typeof SampleTokensSchema>;

/**
 * One accepted chain as an SFT row (OpenAI chat format plus metadata). A tools-scaffold row declares
 * its `tools`; a bash-scaffold row is plain chat (no `tools`, no tool calls: the command is in the
 * assistant's text and its output in the next user turn).
 */
export const TrainingSampleSchema = z.object({
  id: z.string(),
  messages: z.array(MessageSchema),
  tools: z.array(z.unknown()).optional(),
  metadata: z.object({
    repo: z.string(),
    prs: z.array(z.number().int()),
    policy: PolicyKind,
    /** Absent in rows exported before there were two scaffolds: those are 'tools'. */
    scaffold: ScaffoldKind.optional(),
    model: z.string().optional(),
    stages: z.array(
      z.object({
        prNumber: z.number().int(),
        score: z.number(),
        rounds: z.number().int(),
        /** Leak score of the stage's query (0 = gives nothing of the patch away). */
        leakScore: z.number().optional(),
      }),
    ),
    /** What the API reported while the agent ran (the cost of the rollout). */
    usage: UsageSchema,
    /** Tool calls, or commands under the bash scaffold. */
    toolCalls: z.number().int(),
    chainId: z.string().optional(),
    workflowId: z.string().optional(),
    tokens: SampleTokensSchema.optional(),
  }),
});
export type TrainingSample = z.infer<typeof TrainingSampleSchema>;

/** The ShareGPT-style variant of a sample (LLaMA-Factory's role names; tools as a JSON string). */
export const ShareGptSampleSchema = z.object({
  id: z.string(),
  system: z.string(),
  /** Absent for bash-scaffold rows, which declare no tools. */
  tools: z.string().optional(),
  conversations: z.array(
    z.object({ from: z.enum(['human', 'gpt', 'function_call', 'observation']), value: z.string() }),
  ),
  metadata: TrainingSampleSchema.shape.metadata,
});
export type ShareGptSample = z.infer<typeof ShareGptSampleSchema>;

/** 'skipped': nothing could judge the chain's first stage, so it was never rolled out. */
export const RunStatus = z.enum(['accepted', 'rejected', 'failed', 'cancelled', 'skipped']);
export type RunStatus = z.infer<typeof RunStatus>;

/** One judged round of a stage, as the report and the rejection sampling read it. */
export const RunRoundSchema = z.object({
  round: z.number().int().nonnegative(),
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  basis: z.string().optional(),
  modelScore: z.number().min(0).max(1).optional(),
  testsPassed: z.boolean().optional(),
});

export const RunStageSchema = z.object({
  prNumber: z.number().int().positive(),
  status: z.string(),
  rounds: z.array(RunRoundSchema),
});
export type RunStage = z.infer<typeof RunStageSchema>;

/**
 * A finished chain run: what `chainsmith export` turns into samples (when accepted) and what the report
 * plots (all of them). Self-contained: the accepted conversation is inline, not a reference.
 */
export const ChainRunSchema = z.object({
  workflowId: z.string().optional(),
  chainId: z.string(),
  repo: z.string(),
  prs: z.array(z.number().int().positive()).min(1),
  /** When each of `prs` was merged, in the same order: what `export --merged-after` selects by. Absent in older runs. */
  mergedAt: z.array(z.string()).optional(),
  policy: PolicyKind,
  scaffold: ScaffoldKind.optional(),
  model: z.string().optional(),
  status: RunStatus,
  reason: z.string().optional(),
  /** The first stage gold validation found nothing could judge (the chain was cut before it, or skipped), with its typed reason. */
  unjudgeable: z
    .object({ stage: z.number().int().nonnegative(), prNumber: z.number().int().positive(), reason: StageReasonSchema })
    .optional(),
  /** The pass mark the verdicts were held to. */
  threshold: z.number().min(0).max(1),
  stages: z.array(RunStageSchema),
  queries: ChainQueriesSchema.optional(),
  /** The whole conversation, every round of every stage; only accepted runs need it. */
  trajectory: TrajectorySchema.optional(),
});
export type ChainRun = z.infer<typeof ChainRunSchema>;
