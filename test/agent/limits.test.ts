import { ModelClient } from '../../src/model/client';
import { runAgent, type AgentLimits } from '../../src/agent/loop';
import { ModelPolicy } from '../../src/agent/model-policy';
import { costOf } from '../../src/agent/pricing';
import type { Message, Trajectory } from '../../src/schemas';
import { FakeOpenAI, type ChatRequest, type FaultOptions, type Reply } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';
import { useStageSandbox } from '../support/stage-sandbox';

const BASE: AgentLimits = { maxSteps: 40, commandTimeoutSeconds: 10, maxOutputChars: 8_000 };
const sandbox = useStageSandbox('agent-limits', { 'README.md': '# limits\n' });

const bash = (command: string): Reply => ({ toolCalls: [{ name: 'bash', args: { command } }] });
const start = (): Trajectory => ({
  policy: 'model',
  messages: [
    { role: 'system', content: 'You are testing.' },
    { role: 'user', content: 'Task 1 of 1: keep going' },
  ],
  usage: { promptTokens: 0, completionTokens: 0 },
  toolCalls: 0,
  steps: 0,
});

async function run(script: (req: ChatRequest, step: number) => Reply, limits: AgentLimits, faults: FaultOptions = {}) {
  const fake = new FakeOpenAI(scriptedModel({ agent: ({ request, step }) => script(request, step) }), faults);
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const result = await runAgent({
      policy: new ModelPolicy(client, 'scripted'),
      sandbox: sandbox(),
      trajectory: start(),
      limits,
      stepsThisRound: 0,
      onStep: async () => undefined,
    });
    return { ...result, requests: fake.requests.map((r) => r.body) };
  } finally {
    await fake.stop();
  }
}

test('each limit ends the run with its own exit reason: steps, tokens (as the API counts them), cost (from the price table), wall time', async () => {
  const forever = () => bash('echo working');
  const steps = await run(forever, { ...BASE, maxSteps: 3 });
  expect([steps.exitReason, steps.trajectory.steps]).toEqual(['step_limit', 3]);

  const tokens = await run(forever, { ...BASE, maxTokens: 1_500 });
  const used = tokens.trajectory.usage.promptTokens + tokens.trajectory.usage.completionTokens;
  expect(tokens.exitReason).toBe('token_limit');
  expect(used).toBeGreaterThanOrEqual(1_500);
  expect(used - tokens.requests.length * 20).toBe(
    tokens.requests.reduce((n, body) => n + (JSON.stringify(body.messages).length >> 2), 0),
  );

  const price = { inputPerMillion: 500, outputPerMillion: 2_000 };
  const cost = await run(forever, { ...BASE, maxCostUsd: 0.5, price });
  expect(cost.exitReason).toBe('cost_limit');
  expect(cost.trajectory.costUsd).toBeGreaterThanOrEqual(0.5);
  expect(cost.trajectory.costUsd).toBeCloseTo(costOf(cost.trajectory.usage, price)!, 10);

  const time = await run(forever, { ...BASE, maxWallSeconds: 1 }, { latencyMs: 200 });
  expect(time.exitReason).toBe('time_limit');
  expect(time.trajectory.elapsedMs).toBeGreaterThanOrEqual(1_000);
  // Steps went on until the clock ran out; how many fit in a second depends on the machine's load.
  expect(time.trajectory.steps).toBeGreaterThanOrEqual(2);

  // A budget already spent ends a new round before any model call.
  const spent = await runAgent({
    policy: { kind: 'model', next: () => Promise.reject(new Error('not called')) },
    sandbox: sandbox(),
    trajectory: tokens.trajectory,
    limits: { ...BASE, maxTokens: 1_500 },
    stepsThisRound: 0,
    onStep: async () => undefined,
  });
  expect(spent.exitReason).toBe('token_limit');
});

test('malformed tool calls go back to the model as error messages; three in a row end the run', async () => {
  const script = (_req: ChatRequest, step: number): Reply =>
    [
      { toolCalls: [{ name: 'rm_everything', args: {} }] },
      bash('echo fine'), // a good step resets the count
      { toolCalls: [{ name: 'view_file', args: { start_line: 'one' } }] },
      { toolCalls: [{ name: 'bash', args: {} }] },
      { content: 'I think I am done.' },
    ][step];
  const r = await run(script, BASE);
  expect([r.exitReason, r.trajectory.steps]).toEqual(['format_errors', 5]);
  const answers = r.trajectory.messages
    .slice(2)
    .filter((m) => m.role !== 'assistant')
    .map((m) => m.content);
  expect(answers).toEqual([
    'error: unknown tool "rm_everything"; use one of bash, view_file, create_file, str_replace, insert, search, submit',
    'fine\n\n[exit code 0]',
    expect.stringMatching(/^error: bad arguments for view_file: path: .*; start_line: /),
    expect.stringMatching(/^error: bad arguments for bash: command: /),
    'Your reply called no tool. Continue with a tool call, and call submit when the task is done.',
  ]);
  // The model saw each error in its next request.
  expect(r.requests[1].messages.at(-1)!.content).toMatch(/^error: unknown tool/);

  const broken = await run(() => bash('echo never'), BASE, { faultRate: 1, faults: ['malformed_tool_call'] });
  expect([broken.exitReason, broken.trajectory.steps]).toEqual(['format_errors', 3]);
  expect(broken.trajectory.messages.at(-1)!.content).toBe('error: arguments of bash are not valid JSON');
});

test('the conversation is append-only: every request starts with the previous one; a context cut is rare, announced and recorded', async () => {
  // Each step prints ~2,800 characters (~700 tokens as the fake counts them); the budget is 8,000 tokens.
  const script = (_req: ChatRequest, step: number): Reply =>
    step < 20
      ? bash(`printf 'line ${step} %.0s' {1..400}`)
      : { toolCalls: [{ name: 'submit', args: { summary: 'ok' } }] };
  const r = await run(script, { ...BASE, contextTokens: 8_000 });
  expect(r.exitReason).toBe('submitted');
  const cuts = r.trajectory.contextCuts ?? [];
  expect(cuts.length).toBeGreaterThanOrEqual(1);
  // A cut frees room for several steps before the next one.
  cuts.slice(1).forEach((c, i) => expect(c.step - cuts[i].step).toBeGreaterThanOrEqual(3));
  const asText = (ms: ChatRequest['messages']) => ms.map((m) => JSON.stringify(m));
  for (let i = 1; i < r.requests.length; i++) {
    const before = asText(r.requests[i - 1].messages);
    const now = asText(r.requests[i].messages);
    const cutHere = cuts.some((c) => c.step === i);
    // Outside a cut, the previous request is an exact prefix of this one.
    if (!cutHere) expect(now.slice(0, before.length)).toEqual(before);
  }
  const first = cuts[0];
  const notes = r.trajectory.messages.filter((m) => m.role === 'user' && m.content.startsWith('Context note:'));
  expect(notes).toHaveLength(cuts.length);
  // The request after the cut shows earlier outputs shortened; the saved conversation keeps them whole.
  const shown = r.requests[first.step].messages;
  expect(shown[3].content).toMatch(/characters of this earlier output are left out after a context cut/);
  const saved = r.trajectory.messages[3] as Extract<Message, { role: 'tool' }>;
  expect(saved.content).toContain(`line 0 `.repeat(200).trim());
  expect(shown.slice(first.atMessage).map((m) => m.content)).toEqual(
    r.trajectory.messages.slice(first.atMessage, shown.length).map((m) => m.content),
  );
});
