import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SUBMIT_MARKER } from '../../src/agent/bash-scaffold';
import { ArtifactStore } from '../../src/artifacts/store';
import { startChains } from '../../src/batches/start';
import { collectRuns } from '../../src/dataset/collect-runs';
import { datasetPath } from '../../src/dataset/export';
import { exportDataset } from '../../src/dataset/write-dataset';
import type { Chain, ChainRun, Message, TrainingSample } from '../../src/schemas';
import { ChainScaffold, chainWorkflowId } from '../../src/workflows/messages';
import type { ChainResult } from '../../src/workflows/types';
import { agentMedianCommand } from '../support/agent-median';
import { demoChain } from '../support/demo-chain';
import { startEngines, testConfig } from '../support/engines';
import { FakeOpenAI } from '../support/fake-openai';
import { bashBlock, scriptedModel } from '../support/scripted-model';

const AGENT_DOC = 'Agent-made median: average the middle pair.';
const ADD_KEY = [
  "python3 - <<'PY'",
  'import pathlib',
  "p = pathlib.Path('tally/stats.py')",
  's = p.read_text()',
  "s = s.replace('def median(values):', 'def median(values, key=None):')",
  "s = s.replace('    ordered = sorted(values)\\n    middle', '    if key is not None:\\n        values = [key(value) for value in values]\\n    ordered = sorted(values)\\n    middle')",
  'p.write_text(s)',
  'PY',
].join('\n');
const submit = (summary: string) => `echo ${SUBMIT_MARKER} && echo '${summary}'`;

/** The scripted agent under the bash scaffold, per stage and refinement round: one command per reply. */
const AGENT: Record<string, string[]> = {
  '0.0': [agentMedianCommand(AGENT_DOC), submit('added median')],
  '1.0': ['cat tally/stats.py', submit('median already averages')],
  '1.1': [
    `sed -i 's/${AGENT_DOC}/Agent-made median: for an even number of values, average the middle pair./' tally/stats.py`,
    submit('documented even-length behaviour'),
  ],
  '2.0': ['grep -n "def median" tally/stats.py', ADD_KEY, submit('median takes a key')],
};
const COMMANDS = Object.values(AGENT).flat().length;
/** Judge verdicts in call order: stage 1, stage 2 (rejected, then accepted), stage 3. */
const VERDICTS = [
  { score: 0.9, feedback: 'Matches the reference.' },
  { score: 0.4, feedback: 'Say in the docstring how an even number of values is handled.' },
  { score: 0.95, feedback: 'Good.' },
  { score: 0.9, feedback: 'Matches the reference.' },
];

/** Under this scaffold every command's output is a user turn too: the call's marker says where the agent is. */
const model = () =>
  scriptedModel({
    agent: ({ stage, round, step }) => {
      const script = AGENT[`${stage}.${round}`];
      return {
        content: `THOUGHT: step ${step + 1} of this round.\n\n${bashBlock(script[Math.min(step, script.length - 1)]).content}`,
      };
    },
    judge: ({ n }) => ({ content: JSON.stringify(VERDICTS[n]) }),
  });

const row = (path: string): TrainingSample => JSON.parse(readFileSync(path, 'utf8').trim());

describe('the bash scaffold on the Temporal dev server and Docker', () => {
  let chain: Chain;
  beforeAll(async () => {
    chain = await demoChain('bash-scaffold');
  });

  test('a three-stage chain is accepted: carryover, a refinement round in the same conversation, a plain chat sample', async () => {
    const fake = new FakeOpenAI(model());
    const config = testConfig({
      OPENAI_BASE_URL: await fake.start(),
      OPENAI_API_KEY: 'k',
      CHAINSMITH_MODEL: 'scripted',
    });
    const engines = await startEngines(config);
    try {
      const [started] = await startChains(engines.client, config, [chain], {
        policy: 'model',
        scaffold: 'bash',
        taskQueue: engines.taskQueue,
      });
      await Promise.all(engines.workers.map((w) => w.runUntil(started.handle.result())));
      const result: ChainResult = await started.handle.result();

      expect(started.workflowId).toBe(chainWorkflowId(chain.repo.name, [2, 4, 6], 'model', 'bash'));
      expect(started.workflowId).toMatch(/-model-bash$/);
      expect(result.status).toBe('accepted');
      expect(result.results.map((s) => s.rounds.map((r) => r.score))).toEqual([[0.9], [0.4, 0.95], [0.9]]);
      expect(result.results[2].carry).toMatchObject({ fromStages: [2, 4], goldInBase: true, conflicts: [] });

      const agentRequests = fake.requests.filter((r) => r.marker?.caller === 'agent');
      for (const { body } of agentRequests) expect(body).not.toHaveProperty('tools');
      // In stage 2 the agent read its own stage-1 median, carried over, not the gold one.
      const look = agentRequests.find(
        (r) =>
          r.body.messages.some((m) => /Task 2 of 3/.test(m.content ?? '')) &&
          r.body.messages.at(-1)?.content?.startsWith('<returncode>'),
      );
      expect(look!.body.messages.at(-1)!.content).toContain(AGENT_DOC);

      const sample = row(datasetPath(config.dataDir, 'model', 'bash'));
      expect(sample).not.toHaveProperty('tools');
      expect(sample.metadata).toMatchObject({ policy: 'model', scaffold: 'bash', prs: [2, 4, 6], toolCalls: COMMANDS });
      expect(sample.metadata.stages.map((s) => s.rounds)).toEqual([1, 2, 1]);
      expect(
        sample.messages.filter((m: Message) => m.role === 'tool' || (m.role === 'assistant' && m.tool_calls)),
      ).toEqual([]);
      const users = sample.messages.filter((m) => m.role === 'user').map((m) => m.content!);
      expect(users.filter((u) => u.includes(VERDICTS[1].feedback))).toHaveLength(1);
      expect(users.filter((u) => u.startsWith('<returncode>'))).toHaveLength(COMMANDS - 4);
      expect(sample.messages.at(-1)).toMatchObject({
        role: 'assistant',
        content: expect.stringContaining(SUBMIT_MARKER),
      });
      expect(existsSync(datasetPath(config.dataDir, 'model'))).toBe(false);
    } finally {
      await engines.close();
      await fake.stop();
    }
  });

  test('gold replay speaks the bash protocol; the same chain under both scaffolds runs twice, and `export` keeps both samples apart', async () => {
    // The scaffold from the config key here; the tools run below names it on the call.
    const config = testConfig({ CHAINSMITH_SCAFFOLD: 'bash' });
    const engines = await startEngines(config);
    try {
      const [bash] = await startChains(engines.client, config, [chain], {
        policy: 'gold-replay',
        taskQueue: engines.taskQueue,
      });
      const [tools] = await startChains(engines.client, config, [chain], {
        policy: 'gold-replay',
        scaffold: 'tools',
        taskQueue: engines.taskQueue,
      });
      await Promise.all(
        engines.workers.map((w) => w.runUntil(Promise.all([bash.handle.result(), tools.handle.result()]))),
      );
      expect([bash.existed, tools.existed]).toEqual([false, false]);
      // Tools runs keep the ids they always had, so existing runs and the demo are found again.
      expect(tools.workflowId).toBe(`chain-${chain.repo.name.replace(/[^\w.-]+/g, '-')}-2-4-6-gold-replay`);
      expect(bash.workflowId).toBe(`${tools.workflowId}-bash`);
      expect((await bash.handle.result()).status).toBe('accepted');
      expect((await tools.handle.result()).status).toBe('accepted');
      // The Temporal UI and `export --query 'ChainScaffold = "bash"'` tell the two apart.
      const scaffoldOf = async (h: typeof bash.handle) => (await h.describe()).typedSearchAttributes.get(ChainScaffold);
      expect([await scaffoldOf(bash.handle), await scaffoldOf(tools.handle)]).toEqual(['bash', 'tools']);

      const replay = row(datasetPath(config.dataDir, 'gold-replay', 'bash'));
      expect(replay.metadata).toMatchObject({ policy: 'gold-replay', scaffold: 'bash', toolCalls: 9 });
      const replies = replay.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
      expect(replies.slice(0, 3)).toEqual([
        expect.stringMatching(/^Apply the changes of PR #2\.\n\n```bash\ngit apply --3way/),
        expect.stringMatching(/^Run the PR's tests\.\n\n```bash\npython3 -m pytest/),
        expect.stringContaining(`echo ${SUBMIT_MARKER} && echo 'Applied the changes of PR #2.'`),
      ]);
      expect(row(datasetPath(config.dataDir, 'gold-replay')).metadata).toMatchObject({
        policy: 'gold-replay',
        scaffold: 'tools',
      });

      // What `chainsmith export` does: the finished runs from Temporal, resolved from this data directory.
      let runs: ChainRun[] = [];
      for (let i = 0; i < 50 && runs.length < 2; i++) {
        if (i) await new Promise((r) => setTimeout(r, 200));
        runs = (
          await collectRuns(engines.client, new ArtifactStore(join(config.dataDir, 'artifacts')), {
            query: `ChainRepo = "${chain.repo.name}"`,
            threshold: 0.8,
          })
        ).runs;
      }
      expect(runs.map((r) => [r.workflowId, r.scaffold]).sort()).toEqual(
        [
          [tools.workflowId, 'tools'],
          [bash.workflowId, 'bash'],
        ].sort(),
      );
      const manifest = await exportDataset(runs, join(config.dataDir, 'export'));
      expect(manifest.samples).toMatchObject({ total: 2, byScaffold: { tools: 1, bash: 1 } });
      expect(manifest.files.map((f) => f.path)).toEqual([
        'gold-replays.jsonl',
        'gold-replays.sharegpt.jsonl',
        'gold-replays-bash.jsonl',
        'gold-replays-bash.sharegpt.jsonl',
        'runs.jsonl',
      ]);
    } finally {
      await engines.close();
    }
  });
});
