import type { ChatMessage, ModelClient } from '../model/client';
import { MalformedReplyError } from '../model/errors';
import { parseJsonReply } from '../model/json-reply';
import { prompt } from '../model/prompt-files';
import { JUDGE_ASKS } from '../retry-budget';
import { ModelVerdictSchema, type ModelVerdict, type TestOutcome, type TestSignal } from '../schemas';

/** Patches longer than this are cut for the judge: a verdict on most of a huge patch beats no verdict. */
const MAX_PATCH_CHARS = 60_000;
/** The schema the model is asked for: per-aspect notes are required there, if optional when read back. */
const RequestedVerdict = ModelVerdictSchema.required({ aspects: true });

export interface VerdictInput {
  task: string;
  goldPatch: string;
  agentPatch: string;
  tests?: TestSignal;
  /** The tests compared with the gold validation, when there is one. */
  outcome?: TestOutcome;
  /** The chain stage judged (0-based), told to the endpoint as the call's marker. */
  stage?: number;
}

function cut(patch: string): string {
  return patch.length <= MAX_PATCH_CHARS
    ? patch
    : `${patch.slice(0, MAX_PATCH_CHARS)}\n[... ${patch.length - MAX_PATCH_CHARS} more characters not shown ...]`;
}

function describeTests(input: VerdictInput): string {
  const { tests, outcome } = input;
  if (!tests?.ran) return 'none were run (the pull request changes no test)';
  if (outcome?.checked === 'per-test') {
    const f2p = outcome.failToPass!;
    const p2p = outcome.passToPass!;
    const failing = outcome.failing.length ? `; not passing: ${outcome.failing.join(', ')}` : '';
    return `of the tests the real change makes pass, ${f2p.passing} of ${f2p.total} pass; of those that passed before, ${p2p.passing} of ${p2p.total} still pass${failing}`;
  }
  return `the pull request's tests ${tests.passed ? 'passed' : 'failed'} on the agent's patch:\n${tests.output.slice(-2000)}`;
}

/**
 * Asks the judge model for a structured verdict (score, per-aspect notes, feedback). A reply that is
 * not a valid verdict is pointed out in the same conversation and asked for again, JUDGE_ASKS times in all;
 * then the stage fails with the reason (MalformedReplyError). An endpoint that fails is a ModelError.
 */
export async function modelVerdict(
  client: ModelClient,
  model: string,
  input: VerdictInput,
  signal?: AbortSignal,
): Promise<ModelVerdict> {
  const messages: ChatMessage[] = [
    { role: 'system', content: prompt('judge', 'system') },
    {
      role: 'user',
      content: prompt('judge', 'verdict', {
        task: input.task,
        reference: cut(input.goldPatch),
        agent: input.agentPatch ? cut(input.agentPatch) : '(empty: the agent changed nothing)',
        tests: describeTests(input),
      }),
    },
  ];
  const problems: string[] = [];
  for (let attempt = 1; attempt <= JUDGE_ASKS; attempt++) {
    const content = await client.completeJson(
      model,
      messages,
      { name: 'verdict', schema: RequestedVerdict },
      { caller: 'judge', stage: input.stage },
      signal,
    );
    const reply = parseJsonReply(content, ModelVerdictSchema);
    if ('value' in reply) return reply.value;
    problems.push(`attempt ${attempt}: ${reply.problem}`);
    messages.push(
      { role: 'assistant', content },
      { role: 'user', content: prompt('judge', 'malformed', { problem: reply.problem }) },
    );
  }
  throw new MalformedReplyError(
    `the judge returned no valid verdict in ${JUDGE_ASKS} attempts (${problems.join('; ')})`,
  );
}
