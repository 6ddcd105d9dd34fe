// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOL_SPECS } from '../../src/agent/tools';
import { toShareGpt } from '../../src/dataset/sharegpt';
import { countTokens, sampleTokens } from '../../src/dataset/tokens';
import { exportDataset } from '../../src/dataset/write-dataset';
import { TrainingSampleSchema, type TrainingSample } from '../../src/schemas';
import { acceptedRun, bashRun, QUERIES, rejectedRun, trajectory } from './runs';

const fresh = () => mkdtemp(join(tmpdir(), 'chainsmith-export-'));
const rows = async (dir: string, file: string) =>
  (await readFile(join(dir, file), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

test('rejection sampling: an accepted chain becomes one sample; a rejected one is left out with its reason', async () => {
  const out = await fresh();
  const manifest = await exportDataset([acceptedRun(), rejectedRun()], out);
  expect(manifest.runs).toEqual({
    total: 2,
    accepted: 1,
    rejected: 1,
    byScaffold: { tools: { total: 2, accepted: 1, rejected: 1 } },
  });
  expect(manifest.rejections).toEqual([
    {
      chainId: 'example/cache#20-21',
      workflowId: 'chain-example-cache-20-21-model',
      policy: 'model',
      status: 'rejected',
      reason: 'stage 1 (PR #20) was rejected after 4 rounds (last score 0.40)',
    },
  ]);
  const [sample] = (await rows(out, 'model-rollouts.jsonl')).map((r) => TrainingSampleSchema.parse(r));
  expect(sample.metadata).toMatchObject({
    repo: 'example/cache',
    prs: [10, 12],
    policy: 'model',
    model: 'agent-1',
    toolCalls: 12,
    usage: { promptTokens: 12_000, completionTokens: 800 },
    stages: [
      { prNumber: 10, score: 0.9, rounds: 3, leakScore: 0 },
      { prNumber: 12, score: 0.95, rounds: 1, leakScore: 0.25 },
    ],
    tokens: { tokenizer: 'o200k_base' },
  });
  // Overview, both stage queries, both feedback turns, and every round's assistant and tool turns.
  const users = sample.messages.filter((m) => m.role === 'user').map((m) => m.content);
  expect(users).toHaveLength(4);
  expect(users[0]).toContain(QUERIES.overview);
  expect(users[3]).toContain(QUERIES.stages[1].text);
  expect(sample.messages.filter((m) => m.role === 'assistant')).toHaveLength(12);
  expect(sample.tools).toEqual(TOOL_SPECS);
  // The runs file keeps the rejected chain for the report, and no conversation.
  const runs = await rows(out, 'runs.jsonl');
  expect(runs.map((r) => [r.chainId, r.status, 'trajectory' in r])).toEqual([
    ['example/cache#10-12', 'accepted', false],
    ['example/cache#20-21', 'rejected', false],
  ]);
});

test('the verdicts decide, not the status alone: a run marked accepted whose last verdict failed is left out', async () => {
  const run = acceptedRun();
  run.stages[1].rounds = [{ round: 0, score: 0.6, passed: false }];
  const manifest = await exportDataset([run], await fresh());
  expect(manifest.samples.total).toBe(0);
  expect(manifest.rejections[0].reason).toBe('stage 2 (PR #12): last verdict 0.60 is below 0.8');
});

test('a conversation calling a tool it does not declare is not exported', async () => {
  const run = acceptedRun();
  const bad = run.trajectory!.messages.find((m) => m.role === 'assistant' && m.tool_calls)!;
  if (bad.role === 'assistant') bad.tool_calls![0].function.name = 'run_tests';
  const manifest = await exportDataset([run], await fresh());
  expect(manifest.samples.total).toBe(0);
  expect(manifest.rejections[0].reason).toBe('unusable conversation: calls undeclared tool "run_tests"');
});

test('ids depend on content only: the same runs give byte-identical exports, in any order', async () => {
  const runs = [
    acceptedRun(),
    rejectedRun(),
    acceptedRun({
      workflowId: 'other',
      chainId: 'example/cache#30',
      prs: [30],
      stages: [{ prNumber: 30, status: 'accepted', rounds: [{ round: 0, score: 1, passed: true }] }],
      trajectory: trajectory('b'),
    }),
  ];
  const [a, b] = [await fresh(), await fresh()];
  await exportDataset(runs, a);
  await exportDataset([...runs].reverse(), b);
  const files = (await readdir(a)).sort();
  expect(files).toEqual(['manifest.json', 'model-rollouts.jsonl', 'model-rollouts.sharegpt.jsonl', 'runs.jsonl']);
  for (const f of files) expect(await readFile(join(b, f), 'utf8')).toBe(await readFile(join(a, f), 'utf8'));
  const ids = (await rows(a, 'model-rollouts.jsonl')).map((r) => r.id);
  expect(new Set(ids).size).toBe(2);
  for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/);
});

test('de-duplication: the same conversation from two workflows, the same chain twice, and a second export into the same directory', async () => {
  const out = await fresh();
  const first = acceptedRun();
  const copy = acceptedRun({ workflowId: 'a-second-workflow', trajectory: first.trajectory });
  const rerun = acceptedRun({ workflowId: 'a-rerun', trajectory: trajectory('rerun') });
  rerun.stages[0].rounds = [{ round: 0, score: 0.85, passed: true }];
  const manifest = await exportDataset([first, copy, rerun], out);
  expect(manifest.duplicates).toEqual({ sameContent: 1, sameChain: 1 });
  const [kept] = await rows(out, 'model-rollouts.jsonl');
  expect(kept.metadata.stages[0].score).toBe(0.9); // the better-scored of the two conversations of this chain

  // A later export adds new chains and keeps what was exported before, even when its runs are gone.
  const other = acceptedRun({
    workflowId: 'w3',
    chainId: 'example/cache#40',
    prs: [40],
    stages: [{ prNumber: 40, status: 'accepted', rounds: [{ round: 0, score: 1, passed: true }] }],
    trajectory: trajectory('c'),
  });
  const second = await exportDataset([other], out);
  expect(second.samples).toMatchObject({ total: 2, added: 1 });
  expect((await rows(out, 'model-rollouts.jsonl')).map((r) => r.id)).toEqual([kept.id, expect.any(String)]);
  expect(second.runs.total).toBe(4);
});

test('the ShareGPT variant: LLaMA-Factory roles, each call followed by its result, strict alternation where the assistant writes no text', () => {
  const t = trajectory('sharegpt');
  const sample = TrainingSampleSchema.parse({
    id: 'x',
    messages: t.messages,
    tools: TOOL_SPECS,
    metadata: { repo: 'r', prs: [1], policy: 'model', stages: [], usage: t.usage, toolCalls: t.toolCalls },
  });
  const s = toShareGpt(sample);
  expect(s.system).toBe('You are a software engineer.');
  expect(JSON.parse(s.tools!).map((x: { function: { name: string } }) => x.function.name)).toEqual([
    'bash',
    'view_file',
    'create_file',
    'str_replace',
    'insert',
    'search',
    'submit',
  ]);
  expect(s.conversations.slice(0, 4)).toEqual([
    { from: 'human', value: expect.stringContaining('Task 1 of 2') },
    { from: 'function_call', value: '{"name":"bash","arguments":{"command":"cat pkg/cache.py"}}' },
    { from: 'observation', value: expect.stringContaining('def lookup') },
    { from: 'gpt', value: 'I will bound the age of entries.' },
  ]);
  // "submitted" before the feedback turn and at the very end carries nothing and is dropped.
  const afterSubmit = s.conversations.findIndex((c) => c.value.includes('"name":"submit"'));
  expect(s.conversations[afterSubmit + 1]).toEqual({ from: 'human', value: expect.stringContaining('A reviewer') });
  expect(s.conversations.at(-1)!.from).toBe('function_call');
  // Without assistant text in between, human/observation and gpt/function_call turns alternate.
  const noText = toShareGpt({
    ...sample,
    messages: sample.messages.map((m) => (m.role === 'assistant' ? { ...m, content: null } : m)),
  });
  noText.conversations.forEach((c, i) => expect(['human', 'observation'].includes(c.from)).toBe(i % 2 === 0));
});

test('token counts come from the o200k_base tokenizer, not from a character estimate', () => {
  expect(countTokens('hello world')).toBe(2);
  expect(countTokens(' '.repeat(400))).toBeLessThan(10); // runs of spaces merge into few tokens; chars/4 would say 100
  expect(countTokens('<|endoftext|>')).toBeGreaterThan(1); // counted as text, not refused as a special token
  const t = trajectory();
  const counted = sampleTokens(t.messages, TOOL_SPECS);
  expect(counted.tools).toBe(countTokens(JSON.stringify(TOOL_SPECS)));
  expect(counted.assistant).toBeGreaterThan(0);
  expect(counted.total).toBeGreaterThan(counted.assistant + counted.tools);
  const sample = { metadata: { tokens: counted } } as unknown as TrainingSample;
  expect(sample.metadata.tokens!.tokenizer).toBe('o200k_base');
});

test('an export holding both scaffolds: each in files of its own, tools rows with `tools`, bash rows as plain chat; counts, tokens and commands per scaffold', async () => {
  const out = await fresh();
  const runs = [
    acceptedRun(),
    bashRun(),
    { ...rejectedRun(), workflowId: 'chain-example-cache-20-21-model-bash', scaffold: 'bash' as const },
  ];
  const manifest = await exportDataset(runs, out);
  expect(manifest.runs.byScaffold).toEqual({
    bash: { total: 2, accepted: 1, rejected: 1 },
    tools: { total: 1, accepted: 1, rejected: 0 },
  });
  // The same chain under both scaffolds is two samples, not a duplicate.
  expect(manifest.samples).toMatchObject({ total: 2, byPolicy: { model: 2 }, byScaffold: { tools: 1, bash: 1 } });
  expect(manifest.duplicates).toEqual({ sameContent: 0, sameChain: 0 });
  expect(manifest.files.map((f) => f.path)).toEqual([
    'model-rollouts.jsonl',
    'model-rollouts.sharegpt.jsonl',
    'model-rollouts-bash.jsonl',
    'model-rollouts-bash.sharegpt.jsonl',
    'runs.jsonl',
  ]);

  const [tools] = await rows(out, 'model-rollouts.jsonl');
  const [bash] = (await rows(out, 'model-rollouts-bash.jsonl')).map((r) => TrainingSampleSchema.parse(r));
  expect(tools.tools).toEqual(TOOL_SPECS);
  expect(bash).not.toHaveProperty('tools');
  expect(bash.metadata).toMatchObject({ scaffold: 'bash', toolCalls: 9, tokens: { tools: 0 } });
  expect(new Set(bash.messages.map((m) => m.role))).toEqual(new Set(['system', 'user', 'assistant']));
  expect(bash.metadata.tokens!.total).toBe(bash.messages.reduce((n, m) => n + countTokens(m.content ?? ''), 0));

  const stats = manifest.stats as Record<string, { samples: number; toolCalls: { mean: number } }>;
  expect(Object.keys(stats)).toEqual(['model', 'model/bash']);
  expect([stats.model.toolCalls.mean, stats['model/bash'].toolCalls.mean]).toEqual([12, 9]);

  // ShareGPT: a bash row is human and gpt turns only, alternating, with no tools column.
  const [share] = await rows(out, 'model-rollouts-bash.sharegpt.jsonl');
  expect(share).not.toHaveProperty('tools');
  const turns = share.conversations.map((c: { from: string }) => c.from);
  expect(turns.every((from: string, i: number) => from === (i % 2 ? 'gpt' : 'human'))).toBe(true);

  // A second export of the same runs finds both samples there and adds nothing.
  const again = await exportDataset(runs, out);
  expect(again.samples).toMatchObject({ total: 2, added: 0 });
  expect(again.duplicates.sameContent).toBe(2);
});
