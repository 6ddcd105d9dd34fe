import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { collectRuns } from '../../src/dataset/collect-runs';
import { datasetPath } from '../../src/dataset/export';
import { exportDataset } from '../../src/dataset/write-dataset';
import type { Chain, ChainRun } from '../../src/schemas';
import { demoChain } from '../support/demo-chain';
import { testConfig } from '../support/engines';
import { runOneChain } from '../support/one-chain';
import { agentMedianCommand } from '../support/agent-median';
import { FakeOpenAI } from '../support/fake-openai';
import { scriptedModel } from '../support/scripted-model';

const MEDIAN = agentMedianCommand('Middle value; for an even count, the mean of the middle pair.');

/** Per refinement round of the one stage: one edit, then submit. */
const EDITS = [
  MEDIAN,
  `sed -i 's/Middle value;/Middle value of the data;/' tally/stats.py`,
  `sed -i 's/of the data;/of the sorted data;/' tally/stats.py`,
];

/** The scripted model: the agent (tool calls) and the judge (structured verdicts, in call order). */
function model(verdicts: string[]) {
  return scriptedModel({
    agent: ({ round, step }) =>
      step === 0
        ? { toolCalls: [{ name: 'bash', args: { command: EDITS[round] } }] }
        : { toolCalls: [{ name: 'submit', args: { summary: `round ${round + 1}` } }] },
    judge: ({ n }) => ({ content: verdicts[n] }),
  });
}

const verdict = (score: number, feedback: string) =>
  JSON.stringify({
    score,
    feedback,
    aspects: { behaviour: '-', completeness: feedback, scope: 'focused', tests: 'pass' },
  });

/** The demo's first PR as a one-stage chain under a repository name unique to this run. */
async function firstStage(prefix: string): Promise<Chain> {
  const chain = await demoChain(prefix);
  return { ...chain, id: `${chain.id}/first`, prs: [chain.prs[0]], edges: [] };
}

async function runChain(chain: Chain, verdicts: string[], env: Record<string, string> = {}) {
  const fake = new FakeOpenAI(model(verdicts));
  const config = testConfig({
    OPENAI_BASE_URL: await fake.start(),
    OPENAI_API_KEY: 'k',
    CHAINSMITH_MODEL: 'scripted',
    ...env,
  });
  try {
    const { result, inspected: runs } = await runOneChain(config, chain, { policy: 'model' }, async ({ engines }) => {
      // Visibility catches up with a finished workflow shortly after; ask until it lists this one.
      let runs: ChainRun[] = [];
      for (let i = 0; i < 50 && !runs.length; i++) {
        if (i) await new Promise((r) => setTimeout(r, 200));
        runs = (
          await collectRuns(engines.client, new ArtifactStore(join(config.dataDir, 'artifacts')), {
            query: `ChainRepo = "${chain.repo.name}"`,
            threshold: 0.8,
          })
        ).runs;
      }
      return runs;
    });
    return { result, runs, config, fake };
  } finally {
    await fake.stop();
  }
}

describe('refinement rounds on the Temporal dev server and Docker, with a scripted model', () => {
  test('a malformed verdict is retried; a stage rejected twice and accepted in round 3 keeps all three rounds in its trajectory', async () => {
    const chain = await firstStage('refine');
    const { result, runs, config, fake } = await runChain(chain, [
      'Looks right to me.',
      verdict(0.3, 'Say what happens for an even number of values.'),
      verdict(0.5, 'Describe the data the middle is taken from.'),
      verdict(0.9, 'Equivalent.'),
    ]);
    expect(result.status).toBe('accepted');
    expect(result.results[0].rounds.map((r) => r.score)).toEqual([0.3, 0.5, 0.9]);

    // The malformed first verdict went back to the judge in the same conversation, and it answered again.
    const judge = fake.requestsBy('judge').map((r) => r.messages);
    expect(judge).toHaveLength(4);
    expect(judge[1].at(-1)!.content).toMatch(/^Your verdict could not be used: it is not valid JSON/);

    // One conversation holds every round: the task, both feedback turns, three rounds of work.
    const sample = JSON.parse(readFileSync(datasetPath(config.dataDir, 'model'), 'utf8').trim());
    const users = sample.messages
      .filter((m: { role: string }) => m.role === 'user')
      .map((m: { content: string }) => m.content);
    expect(users).toHaveLength(3);
    expect(users[1]).toContain('Say what happens for an even number of values.');
    expect(users[2]).toContain('Describe the data the middle is taken from.');
    const commands = sample.messages
      .flatMap((m: { tool_calls?: { function: { arguments: string } }[] }) => m.tool_calls ?? [])
      .map((c: { function: { arguments: string } }) => JSON.parse(c.function.arguments).command);
    expect(commands.filter(Boolean)).toEqual(EDITS);
    expect(sample.metadata.stages).toEqual([{ prNumber: 2, score: 0.9, rounds: 3, leakScore: 0 }]);

    // `chainsmith export` finds the same run on Temporal and builds the same sample (same id), rounds and all.
    expect(runs.map((r) => [r.status, r.stages[0].rounds.map((x) => x.score)])).toEqual([
      ['accepted', [0.3, 0.5, 0.9]],
    ]);
    expect(runs[0].stages[0].rounds[2]).toMatchObject({ basis: 'model+tests', modelScore: 0.9, testsPassed: true });
    // The template query this chain ran with gets its leak measured on collection.
    expect(runs[0].queries?.stages[0].leak).toMatchObject({ score: 0, attempts: 1, passed: true });
    const manifest = await exportDataset(runs, join(config.dataDir, 'export'));
    const exported = JSON.parse(readFileSync(join(config.dataDir, 'export', 'model-rollouts.jsonl'), 'utf8').trim());
    expect(manifest.samples.total).toBe(1);
    expect(exported.id).toBe(sample.id);
    expect(exported.metadata.stages[0]).toMatchObject({ rounds: 3, score: 0.9 });
  });

  test('a stage still rejected after the last round is left out of the dataset, and the chain says why', async () => {
    const chain = await firstStage('reject');
    const { result, runs, config } = await runChain(
      chain,
      [verdict(0.2, 'Not the behaviour asked for.'), verdict(0.3, 'Still not.')],
      { CHAINSMITH_MAX_REFINEMENTS: '1' },
    );
    expect(result.status).toBe('rejected');
    expect(result.reason).toMatch(/^stage 1 \(PR #2\) was rejected after 2 rounds \(last score 0\.30/);
    expect(existsSync(datasetPath(config.dataDir, 'model'))).toBe(false);

    const manifest = await exportDataset(runs, join(config.dataDir, 'export'));
    expect(manifest.samples.total).toBe(0);
    expect(manifest.rejections).toEqual([expect.objectContaining({ status: 'rejected', reason: result.reason })]);
    expect(existsSync(join(config.dataDir, 'export', 'model-rollouts.jsonl'))).toBe(false);
  });
});
