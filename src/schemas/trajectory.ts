import { z } from 'zod';

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** OpenAI chat format, so a trajectory is already close to a training row. */
export const MessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);
export type Message = z.infer<typeof MessageSchema>;
export type AssistantMessage = Extract<Message, { role: 'assistant' }>;

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  /** Prompt tokens the provider served from its prompt cache (billed cheaper), where it says so. */
  cachedPromptTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ExitReason = z.enum([
  'submitted',
  'step_limit',
  'token_limit',
  'time_limit',
  'cost_limit',
  'format_errors',
]);
export type ExitReason = z.infer<typeof ExitReason>;

export const PolicyKind = z.enum(['model', 'gold-replay']);
export type PolicyKind = z.infer<typeof PolicyKind>;

/**
 * How the agent talks to the sandbox: 'tools' declares function tools and the model calls them;
 * 'bash' (mini-swe-agent's shape) declares nothing and each reply holds one fenced bash block.
 */
export const ScaffoldKind = z.enum(['tools', 'bash']);
export type ScaffoldKind = z.infer<typeof ScaffoldKind>;

export const ContextCutSchema = z.object({
  atMessage: z.number().int().nonnegative(),
  step: z.number().int().nonnegative(),
  promptTokens: z.number().int().nonnegative(),
});
export type ContextCut = z.infer<typeof ContextCutSchema>;

/** The whole conversation of a chain so far; saved after every agent step. */
export const TrajectorySchema = z.object({
  policy: PolicyKind,
  model: z.string().optional(),
  /** Absent in trajectories saved before there were two scaffolds: those are all 'tools'. */
  scaffold: ScaffoldKind.optional(),
  messages: z.array(MessageSchema),
  usage: UsageSchema,
  /** Actions run: tool calls under the tools scaffold, commands under the bash scaffold. */
  toolCalls: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  exitReason: ExitReason.optional(),
  /** Priced from `usage` with the configured price table; absent when the model has no price. */
  costUsd: z.number().nonnegative().optional(),
  /** Time spent in agent steps (model calls and tools), summed over the chain and across resumes. */
  elapsedMs: z.number().nonnegative().optional(),
  /**
   * Where the conversation outgrew the context budget: from then on, tool outputs before message
   * `atMessage` are shown to the model shortened. `messages` itself is never rewritten.
   */
  contextCuts: z.array(ContextCutSchema).optional(),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;
