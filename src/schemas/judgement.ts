import { z } from 'zod';

export const TestSignalSchema = z.object({
  command: z.string(),
  ran: z.boolean(),
  passed: z.boolean(),
  exitCode: z.number().int(),
  output: z.string(),
});
export type TestSignal = z.infer<typeof TestSignalSchema>;

/** What the model must return when asked to judge; validated before use. */
export const ModelVerdictSchema = z.object({
  score: z.number().min(0).max(1),
  feedback: z.string(),
});
export type ModelVerdict = z.infer<typeof ModelVerdictSchema>;

export const JudgementSchema = z.object({
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  feedback: z.string(),
  tests: TestSignalSchema.optional(),
  model: ModelVerdictSchema.optional(),
});
export type Judgement = z.infer<typeof JudgementSchema>;
