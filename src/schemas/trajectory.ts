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

export const UsageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ExitReason = z.enum(['submitted', 'step_limit', 'format_errors']);
export type ExitReason = z.infer<typeof ExitReason>;

export const PolicyKind = z.enum(['model', 'gold-replay']);
export type PolicyKind = z.infer<typeof PolicyKind>;

/** The whole conversation of a chain so far; saved after every agent step. */
export const TrajectorySchema = z.object({
  policy: PolicyKind,
  model: z.string().optional(),
  messages: z.array(MessageSchema),
  usage: UsageSchema,
  toolCalls: z.number().int().nonnegative(),
  steps: z.number().int().nonnegative(),
  exitReason: ExitReason.optional(),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;
