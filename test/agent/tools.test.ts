import Docker from 'dockerode';
import { ModelClient } from '../../src/model/client';
import { runAgent, type AgentLimits } from '../../src/agent/loop';
import { ModelPolicy } from '../../src/agent/model-policy';
import { systemPrompt } from '../../src/agent/prompts';
import { executeTool } from '../../src/agent/tools';
import type { DockerContainer } from '../../src/container/docker-container';
import { CONTAINER_LABEL } from '../../src/container/docker-container';
import type { Message, Trajectory } from '../../src/schemas';
import { FakeOpenAI, type Reply } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';
import { stageSandbox } from '../support/stage-sandbox';

const docker = new Docker();
const LABELS = { 'chainsmith.test': 'agent-tools' };
const LIMITS: AgentLimits = { maxSteps: 30, commandTimeoutSeconds: 2, maxOutputChars: 8_000 };
let sandbox: DockerContainer;

beforeAll(async () => {
  ({ sandbox } = await stageSandbox(
    docker,
    { 'README.md': '# demo\nfirst line\n', 'src/app.py': 'def main():\n    return "hello"\n' },
    LABELS,
  ));
});

afterAll(async () => {
  await sandbox?.destroy();
  expect(
    await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, 'chainsmith.test=agent-tools'] } }),
  ).toHaveLength(0);
});

const call = (name: string, args: Record<string, unknown>): Reply => ({ toolCalls: [{ name, args }] });

/** One tool call per step, chosen by how many steps the agent has taken. */
function scripted(steps: Reply[]) {
  return scriptedModel({ agent: ({ step }) => steps[Math.min(step, steps.length - 1)] });
}

async function runScript(steps: Reply[]): Promise<{ t: Trajectory; exitReason: string; outputs: string[] }> {
  const fake = new FakeOpenAI(scripted(steps));
  const client = new ModelClient({ baseUrl: await fake.start(), retry: { attempts: 1, baseDelayMs: 0 } });
  try {
    const saved: number[] = [];
    const run = await runAgent({
      policy: new ModelPolicy(client, 'scripted'),
      sandbox,
      trajectory: {
        policy: 'model',
        messages: [
          { role: 'system', content: systemPrompt('The project is installed.') },
          { role: 'user', content: 'Task 1 of 1: do it' },
        ],
        usage: { promptTokens: 0, completionTokens: 0 },
        toolCalls: 0,
        steps: 0,
      },
      limits: LIMITS,
      stepsThisRound: 0,
      onStep: async (_t, n) => void saved.push(n),
    });
    expect(saved).toEqual(steps.map((_, i) => i + 1)); // saved after every step
    const outputs = run.trajectory.messages
      .filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool')
      .map((m) => m.content);
    return { t: run.trajectory, exitReason: run.exitReason, outputs };
  } finally {
    await fake.stop();
  }
}

test('a 10 MB stdout comes back truncated with a note of how much was cut, and a command past its timeout is killed; the run goes on', async () => {
  const { exitReason, outputs, t } = await runScript([
    call('bash', { command: "head -c 10000000 /dev/zero | tr '\\0' a; echo; echo THE-END" }),
    call('bash', { command: 'sleep 30; echo never printed' }),
    call('bash', { command: 'echo still here' }),
    call('submit', { summary: 'done' }),
  ]);
  expect(exitReason).toBe('submitted');
  const [big, slow, after] = outputs;
  expect(big.length).toBeLessThan(LIMITS.maxOutputChars + 200);
  const note = /\n\[\.\.\. (\d+) characters cut from the middle of this output \.\.\.\]\n/.exec(big)!;
  // What is shown and what the note says was cut add up to the whole output.
  const shown = big.length - note[0].length - '\n[exit code 0]'.length;
  expect(shown + Number(note[1])).toBe(10_000_000 + '\nTHE-END\n'.length);
  expect(big).toMatch(/^a{100}/);
  expect(big).toMatch(/THE-END\n\n\[exit code 0\]$/);
  expect(slow).toBe('\n[command killed after 2s]\n[exit code 124]');
  expect(after).toBe('still here\n\n[exit code 0]');
  expect(t.steps).toBe(4);
});

test('file tools stay inside the repository: ../../etc/passwd, absolute paths, symlinks out and .git are refused', async () => {
  const { outputs } = await runScript([
    call('view_file', { path: '../../etc/passwd' }),
    call('create_file', { path: '/work/escape.txt', content: 'x' }),
    call('bash', { command: 'ln -s /etc/passwd passwd-link && ln -s /work outside' }),
    call('str_replace', { path: 'passwd-link', old_str: 'root', new_str: 'toor' }),
    call('insert', { path: 'outside/escape.txt', insert_line: 0, text: 'x' }),
    call('create_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }),
    call('search', { pattern: 'root', path: '../..' }),
    call('bash', {
      command:
        'test -e /work/escape.txt; echo escaped=$?; grep -c toor /etc/passwd; ls .git/hooks | grep -c "^pre-commit$"',
    }),
    call('submit', { summary: 'tried' }),
  ]);
  expect(outputs.slice(0, 2)).toEqual([
    'refused: ../../etc/passwd is outside the repository',
    'refused: /work/escape.txt is outside the repository',
  ]);
  expect(outputs[3]).toBe('refused: passwd-link resolves outside the repository');
  expect(outputs[4]).toBe('refused: outside/escape.txt resolves outside the repository');
  expect(outputs[5]).toBe('refused: .git/hooks/pre-commit is outside the repository');
  expect(outputs[6]).toBe('refused: ../.. is outside the repository');
  expect(outputs[7]).toBe('escaped=1\n0\n0\n\n[exit code 1]');
});

test('insert, search, str_replace and view_file edit and read the way a model expects', async () => {
  const limits = LIMITS;
  const tool = async (name: string, args: Record<string, unknown>) =>
    (
      await executeTool(
        sandbox,
        { id: 'x', type: 'function', function: { name, arguments: JSON.stringify(args) } },
        limits,
      )
    ).output;
  expect(await tool('insert', { path: 'README.md', insert_line: 1, text: 'inserted line\n' })).toBe(
    'inserted 1 line(s) after line 1 of README.md',
  );
  expect(await tool('insert', { path: 'README.md', insert_line: 9, text: 'x' })).toBe(
    'README.md has 3 lines; insert_line must be between 0 and 3',
  );
  expect(await tool('view_file', { path: 'README.md', start_line: 2, end_line: 3 })).toMatch(
    /^\s+2\tinserted line\n\s+3\tfirst line\n$/,
  );
  expect(await tool('search', { pattern: 'hello' })).toBe('src/app.py:2:    return "hello"\n');
  expect(await tool('search', { pattern: 'HEL+O', regex: true, ignore_case: true, path: 'src' })).toBe(
    'src/app.py:2:    return "hello"\n',
  );
  expect(await tool('search', { pattern: 'absent words' })).toBe('no matches for "absent words"');
  expect(await tool('str_replace', { path: 'src/app.py', old_str: '"hello"', new_str: '"hi"' })).toBe(
    'replaced one occurrence in src/app.py at line 2',
  );
  expect(await tool('str_replace', { path: 'src/app.py', old_str: 'nothing like this', new_str: '' })).toBe(
    'old_str occurs 0 times in src/app.py; it must occur exactly once',
  );
  expect(await tool('view_file', { path: 'src' })).toContain('app.py');
  expect((await sandbox.exec('git diff --stat', { timeoutSeconds: 10, maxOutputChars: 2000 })).output).toMatch(
    /README\.md +\| 1 \+\n.*src\/app\.py +\| 2 \+-/s,
  );
});
