import OpenAI from 'openai';
import { z } from 'zod';
import { StageError, TransientError } from '../errors';
import { ModelVerdictSchema, type ModelVerdict, type TestSignal } from '../schemas';

const JUDGE_PROMPT = `You review a coding agent's patch against the reference patch of a real pull request.
Score functional equivalence from 0 to 1: does the agent's patch achieve what the reference achieves, in
behaviour, not in wording? 1 = equivalent, 0.8 = equivalent with minor gaps, below 0.8 = something the
task needs is missing or wrong. Feedback must tell the agent what is missing without quoting the reference.
Answer with JSON: {"score": number, "feedback": string}.`;

const ATTEMPTS = 3;
const VERDICT_FORMAT = {
  type: 'json_schema' as const,
  json_schema: { name: 'verdict', strict: true, schema: z.toJSONSchema(ModelVerdictSchema) as Record<string, unknown> },
};

/** Asks the judge model for a structured verdict; a malformed one is asked for again, then the stage fails. */
export async function modelVerdict(
  client: OpenAI,
  model: string,
  input: { task: string; goldPatch: string; agentPatch: string; tests?: TestSignal },
): Promise<ModelVerdict> {
  const user = [
    `Task given to the agent:\n${input.task}`,
    `Reference patch:\n${input.goldPatch}`,
    `Agent's patch:\n${input.agentPatch || '(empty)'}`,
    input.tests ? `The PR's tests on the agent's patch: ${input.tests.passed ? 'passed' : 'failed'}\n${input.tests.output.slice(-2000)}` : '',
  ].join('\n\n');
  const problems: string[] = [];
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let content: string | null | undefined;
    try {
      const response = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: JUDGE_PROMPT },
          { role: 'user', content: user },
        ],
        response_format: VERDICT_FORMAT,
      });
      content = response.choices?.[0]?.message?.content;
    } catch (cause) {
      throw new TransientError(`judge request failed: ${(cause as Error).message}`, { cause });
    }
    const parsed = ModelVerdictSchema.safeParse(safeJson(content));
    if (parsed.success) return parsed.data;
    problems.push(`attempt ${attempt}: ${JSON.stringify(content ?? null).slice(0, 200)}`);
  }
  throw new StageError(`the judge returned no valid verdict in ${ATTEMPTS} attempts (${problems.join('; ')})`);
}

function safeJson(text: string | null | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}
