import { ModelClient } from '../../src/model/client';
import { BASH_SCAFFOLD, bashBlock, SUBMIT_MARKER } from '../../src/agent/bash-scaffold';
import { runAgent, type AgentLimits } from '../../src/agent/loop';
import { ModelPolicy } from '../../src/agent/model-policy';
import { Redactor } from '../../src/redact';
import type { Message, Trajectory } from '../../src/schemas';
import { FakeOpenAI } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';
import { useStageSandbox } from '../support/stage-sandbox';

const LIMITS: AgentLimits = { maxSteps: 20, commandTimeoutSeconds: 10, maxOutputChars: 8_000 };
const SECRET = 'sk-bash-scaffold-secret-93c1f0a7';
const sandbox = useStageSandbox('bash-scaffold', { 'README.md': '# bash\n' });

const block = (command: string, why = 'THOUGHT: next.') => `${why}\n\n\`\`\`bash\n${command}\n\`\`\``;
const start = (): Trajectory => ({
  policy: 'model',
  scaffold: 'bash',
  messages: [
    { role: 'system', content: BASH_SCAFFOLD.systemPrompt('The project is installed.') },
    { role: 'user', content: 'Task 1 of 1: keep going' },
  ],
  usage: { promptTokens: 0, completionTokens: 0 },
  toolCalls: 0,
  steps: 0,
});

/** Runs the loop under the bash scaffold with replies scripted by step; the requests are kept. */
async function run(replies: string[], limits = LIMITS) {
  const fake = new FakeOpenAI(scriptedModel({ agent: ({ step }) => ({ content: replies[step] }) }));
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const result = await runAgent({
      policy: new ModelPolicy(client, 'scripted'),
      sandbox: sandbox(),
      trajectory: start(),
      limits,
      stepsThisRound: 0,
      redactor: new Redactor([SECRET]),
      onStep: async () => undefined,
    });
    return { ...result, requests: fake.requests.map((r) => r.body) };
  } finally {
    await fake.stop();
  }
}

const answers = (messages: Message[]) =>
  messages
    .slice(2)
    .filter((m) => m.role === 'user')
    .map((m) => m.content);

test('the block parser finds exactly one ```bash block and names every other shape', () => {
  expect(bashBlock(block('ls -la\npwd'))).toEqual({ command: 'ls -la\npwd' });
  // A quoted diff in the reasoning is not a command.
  expect(bashBlock(`It should read:\n\`\`\`diff\n-a\n+b\n\`\`\`\n${block('git diff')}`)).toEqual({
    command: 'git diff',
  });
  expect(bashBlock('I would run ls now.')).toEqual({ problem: 'none' });
  expect(bashBlock('```python\nprint(1)\n```')).toEqual({ problem: 'none' });
  expect(bashBlock(`${block('ls')}\n${block('pwd')}`)).toEqual({ problem: 'several', count: 2 });
  expect(bashBlock('Running:\n```bash\nls -la\n')).toEqual({ problem: 'unterminated' });
  expect(bashBlock('```bash\n  \n```')).toEqual({ problem: 'empty' });
});

test('a run under the bash scaffold: no tools in the request, each block runs in the sandbox, the marker submits', async () => {
  const r = await run([
    block('echo carried > carried.txt && cat carried.txt', 'THOUGHT: write a file and read it back.'),
    block('exit 3'),
    block(`echo ${SUBMIT_MARKER} && echo 'wrote carried.txt'`),
  ]);
  expect([r.exitReason, r.trajectory.steps, r.trajectory.toolCalls]).toEqual(['submitted', 3, 3]);
  for (const body of r.requests) expect(body).not.toHaveProperty('tools');
  expect(answers(r.trajectory.messages)).toEqual([
    '<returncode>0</returncode>\n<output>\ncarried\n</output>',
    '<returncode>3</returncode>\n<output>\n</output>',
  ]);
  // The model saw the output of its command as the next user turn.
  expect(r.requests[1].messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('carried') });
  // The submission ends the conversation on the agent's own reply: nothing answers it.
  expect(r.trajectory.messages.at(-1)).toMatchObject({
    role: 'assistant',
    content: expect.stringContaining(SUBMIT_MARKER),
  });
  expect((await sandbox().exec('cat carried.txt', { timeoutSeconds: 5, maxOutputChars: 100 })).output).toBe(
    'carried\n',
  );
});

test('malformed replies (no block, two blocks, an unterminated block) run nothing and get a format-error turn; three in a row end the run', async () => {
  const r = await run([
    'I will look around first.',
    block('touch one-of-two'),
    `${block('touch first-of-two')}\n\nand then\n\n${block('touch second-of-two')}`,
    'Now:\n```bash\ntouch unterminated\n',
    'Done, I think.',
  ]);
  expect([r.exitReason, r.trajectory.steps, r.trajectory.toolCalls]).toEqual(['format_errors', 5, 1]);
  expect(answers(r.trajectory.messages)).toEqual([
    expect.stringMatching(
      /^Your reply had no ```bash block, so nothing ran\. .*exactly one ```bash block.*CHAINSMITH_SUBMIT/,
    ),
    '<returncode>0</returncode>\n<output>\n</output>',
    expect.stringMatching(/^Your reply had 2 ```bash blocks; one command runs per step, so none of them ran\./),
    expect.stringMatching(/^Your reply opened a ``` block that it did not close, so nothing ran\./),
    expect.stringMatching(/^Your reply had no ```bash block/),
  ]);
  const files = await sandbox().exec('ls', { timeoutSeconds: 5, maxOutputChars: 1000 });
  expect(files.output).toContain('one-of-two');
  expect(files.output).not.toMatch(/first-of-two|second-of-two|unterminated/);
});

test("the budgets are the loop's, not the scaffold's: a bash run that never submits ends on its step limit", async () => {
  const r = await run([block('echo one'), block('echo two'), block('echo three')], { ...LIMITS, maxSteps: 2 });
  expect([r.exitReason, r.trajectory.steps, r.requests.length]).toEqual(['step_limit', 2, 2]);
});

test("the worker's secrets leave a command before it runs and never reach the saved conversation", async () => {
  const r = await run([block(`echo "${SECRET}" > leak.txt && cat leak.txt`), block(`echo ${SUBMIT_MARKER}`)]);
  expect(r.exitReason).toBe('submitted');
  expect((await sandbox().exec('cat leak.txt', { timeoutSeconds: 5, maxOutputChars: 100 })).output).toBe(
    '[REDACTED]\n',
  );
  expect(JSON.stringify(r.trajectory.messages)).not.toContain(SECRET);
  expect(JSON.stringify(r.requests)).not.toContain(SECRET);
});

test('after a context cut, earlier command outputs and long replies are shortened; the task never is', () => {
  const long = 'x'.repeat(2_000);
  const task: Message = { role: 'user', content: `Task 1 of 1: ${long}` };
  const output: Message = { role: 'user', content: `<returncode>0</returncode>\n<output>\n${long}\n</output>` };
  const reply: Message = { role: 'assistant', content: block(`cat > big.txt <<'EOF'\n${long}\nEOF`) };
  expect(BASH_SCAFFOLD.shortened(task)).toBe(task);
  expect(BASH_SCAFFOLD.shortened(output).content).toMatch(
    /^<returncode>0<\/returncode>[\s\S]*left out after a context cut[\s\S]*<\/output>$/,
  );
  expect(BASH_SCAFFOLD.shortened(reply).content!.length).toBeLessThan(600);
});
