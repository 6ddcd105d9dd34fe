import { z } from 'zod';
import { MessageSchema, PolicyKind, UsageSchema } from './trajectory';

/** One accepted chain as an SFT row (OpenAI chat format plus metadata). */
export const TrainingSampleSchema = z.object({
  id: z.string(),
  messages: z.array(MessageSchema),
  tools: z.array(z.unknown()),
  metadata: z.object({
    repo: z.string(),
    prs: z.array(z.number().int()),
    policy: PolicyKind,
    model: z.string().optional(),
    stages: z.array(z.object({ prNumber: z.number().int(), score: z.number(), rounds: z.number().int() })),
    usage: UsageSchema,
    toolCalls: z.number().int(),
  }),
});
export type TrainingSample = z.infer<typeof TrainingSampleSchema>;
