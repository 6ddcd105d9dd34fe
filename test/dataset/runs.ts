import type { ChainQueries, ChainRun, Message, Trajectory } from '../../src/schemas';

let callCounter = 0;
function call(name: string, args: Record<string, unknown>) {
  return {
    id: `call_${++callCounter}`,
    type: 'function' as const,
    function: { name, arguments: JSON.stringify(args) },
  };
}

/** One agent round: look, edit, submit, each a tool call with its result. */
function round(edit: string): Message[] {
  const look = call('bash', { command: 'cat pkg/cache.py' });
  const change = call('str_replace', { path: 'pkg/cache.py', old_str: 'return entry', new_str: edit });
  const submit = call('submit', { summary: 'done' });
  return [
    { role: 'assistant', content: null, tool_calls: [look] },
    { role: 'tool', tool_call_id: look.id, content: 'def lookup(key):\n    return entry\n[exit code 0]' },
    { role: 'assistant', content: 'I will bound the age of entries.', tool_calls: [change] },
    { role: 'tool', tool_call_id: change.id, content: 'replaced one occurrence in pkg/cache.py' },
    { role: 'assistant', content: null, tool_calls: [submit] },
    { role: 'tool', tool_call_id: submit.id, content: 'submitted' },
  ];
}

export const QUERIES: ChainQueries = {
  overview: 'Make the cache trustworthy, then observable.',
  generator: 'model',
  model: 'writer',
  stages: [
    {
      prNumber: 10,
      text: 'Bound the age of cache entries.',
      leak: { score: 0, findings: [], limit: 0.3, passed: true, attempts: 2, firstScore: 0.6 },
    },
    {
      prNumber: 12,
      text: 'Count cache misses.',
      leak: {
        score: 0.25,
        findings: [{ kind: 'path', text: 'pkg/stats.py', weight: 0.25 }],
        limit: 0.3,
        passed: true,
        attempts: 1,
        firstScore: 0.25,
      },
    },
  ],
  overviewLeak: { score: 0, findings: [], limit: 0.3, passed: true, attempts: 1, firstScore: 0 },
};

/** A two-stage conversation: stage 1 rejected twice and accepted in round 3, stage 2 accepted at once. */
export function trajectory(variant = 'a'): Trajectory {
  const messages: Message[] = [
    { role: 'system', content: 'You are a software engineer.' },
    {
      role: 'user',
      content: `Overview of the work ahead:\n${QUERIES.overview}\n\nTask 1 of 2:\n${QUERIES.stages[0].text}`,
    },
    ...round(`return entry  # ${variant} 1`),
    {
      role: 'user',
      content:
        'A reviewer compared your submission with what the task needs and did not accept it yet:\nEntries older than the bound must be reloaded.',
    },
    ...round(`return reload(entry)  # ${variant} 2`),
    {
      role: 'user',
      content:
        'A reviewer compared your submission with what the task needs and did not accept it yet:\nKeep the old behaviour without a bound.',
    },
    ...round(`return entry if fresh else reload(entry)  # ${variant} 3`),
    { role: 'user', content: `Task 2 of 2:\n${QUERIES.stages[1].text}` },
    ...round(`misses += 1  # ${variant}`),
  ];
  const toolCalls = messages.filter((m) => m.role === 'tool').length;
  return {
    policy: 'model',
    model: 'agent-1',
    messages,
    usage: { promptTokens: 12_000, completionTokens: 800 },
    toolCalls,
    steps: toolCalls,
  };
}

const rounds = (...scores: number[]) =>
  scores.map((score, round) => ({
    round,
    score,
    passed: score >= 0.8,
    basis: 'model+tests',
    modelScore: score,
    testsPassed: true,
  }));

export function acceptedRun(overrides: Partial<ChainRun> = {}): ChainRun {
  return {
    workflowId: 'chain-example-cache-10-12-model',
    chainId: 'example/cache#10-12',
    repo: 'example/cache',
    prs: [10, 12],
    policy: 'model',
    model: 'agent-1',
    status: 'accepted',
    threshold: 0.8,
    stages: [
      { prNumber: 10, status: 'accepted', rounds: rounds(0.3, 0.5, 0.9) },
      { prNumber: 12, status: 'accepted', rounds: rounds(0.95) },
    ],
    queries: QUERIES,
    trajectory: trajectory(),
    ...overrides,
  };
}

export function rejectedRun(): ChainRun {
  return {
    workflowId: 'chain-example-cache-20-21-model',
    chainId: 'example/cache#20-21',
    repo: 'example/cache',
    prs: [20, 21],
    policy: 'model',
    model: 'agent-1',
    status: 'rejected',
    reason: 'stage 1 (PR #20) was rejected after 4 rounds (last score 0.40)',
    threshold: 0.8,
    stages: [{ prNumber: 20, status: 'rejected', rounds: rounds(0.2, 0.3, 0.3, 0.4) }],
    queries: { ...QUERIES, stages: QUERIES.stages.map((s, i) => ({ ...s, prNumber: [20, 21][i] })) },
  };
}

/** One round under the bash scaffold: look, edit (reasoning and one ```bash block each, outputs as user turns), submit. */
function bashRound(edit: string): Message[] {
  const reply = (why: string, command: string): Message => ({
    role: 'assistant',
    content: `THOUGHT: ${why}\n\n\`\`\`bash\n${command}\n\`\`\``,
  });
  return [
    reply('Read the cache first.', 'cat pkg/cache.py'),
    { role: 'user', content: '<returncode>0</returncode>\n<output>\ndef lookup(key):\n    return entry\n</output>' },
    reply('Bound the age of entries.', `sed -i 's/return entry/${edit}/' pkg/cache.py`),
    { role: 'user', content: '<returncode>0</returncode>\n<output>\n</output>' },
    reply('Done.', "echo CHAINSMITH_SUBMIT && echo 'done'"),
  ];
}

/** The same two-stage story as trajectory(), under the bash scaffold: stage 1 refined once. */
export function bashTrajectory(variant = 'a'): Trajectory {
  const messages: Message[] = [
    { role: 'system', content: 'You are a software engineer. Reply with one ```bash block.' },
    {
      role: 'user',
      content: `Overview of the work ahead:\n${QUERIES.overview}\n\nTask 1 of 2:\n${QUERIES.stages[0].text}`,
    },
    ...bashRound(`return entry  # ${variant} 1`),
    {
      role: 'user',
      content:
        'A reviewer compared your submission with what the task needs and did not accept it yet:\nEntries older than the bound must be reloaded.',
    },
    ...bashRound(`return reload(entry)  # ${variant} 2`),
    { role: 'user', content: `Task 2 of 2:\n${QUERIES.stages[1].text}` },
    ...bashRound(`misses += 1  # ${variant}`),
  ];
  const commands = messages.filter((m) => m.role === 'assistant').length;
  return {
    policy: 'model',
    model: 'agent-1',
    scaffold: 'bash',
    messages,
    usage: { promptTokens: 9_000, completionTokens: 600 },
    toolCalls: commands,
    steps: commands,
  };
}

/** acceptedRun()'s chain rolled out under the bash scaffold (its own workflow id). */
export function bashRun(overrides: Partial<ChainRun> = {}): ChainRun {
  return acceptedRun({
    workflowId: 'chain-example-cache-10-12-model-bash',
    scaffold: 'bash',
    stages: [
      { prNumber: 10, status: 'accepted', rounds: rounds(0.5, 0.9) },
      { prNumber: 12, status: 'accepted', rounds: rounds(0.95) },
    ],
    trajectory: bashTrajectory(),
    ...overrides,
  });
}
