import { JUDGE_ASKS, JUDGE_STAGE_WORST_REQUESTS } from '../src/retry-budget';
import type { Chain } from '../src/schemas';
import { agentMedianCommand } from './support/agent-median';
import { demoChain } from './support/demo-chain';
import { testConfig } from './support/engines';
import { FakeOpenAI } from './support/fake-openai';
import { runOneChain } from './support/one-chain';
import { scriptedModel } from './support/scripted-model';

/**
 * The worst case src/retry-budget.ts states for one judgeStage activity, counted on the real
 * configuration: the workers' model client, the judge's re-asks and the activity's Temporal retry
 * policy, on the dev server. The judge never gives a verdict, in the way that costs the most: every
 * ask but the last gets a malformed reply (asked again in the same conversation), and the last a 500
 * (which fails the activity, and Temporal tries it again).
 */
test(`one judgeStage activity makes at most ${JUDGE_STAGE_WORST_REQUESTS} model requests, as the retry budget says`, async () => {
  const demo = await demoChain('budget');
  const chain: Chain = { ...demo, id: `${demo.id}/first`, prs: [demo.prs[0]], edges: [] };
  const fake = new FakeOpenAI(
    scriptedModel({
      agent: ({ step }) =>
        step === 0
          ? { toolCalls: [{ name: 'bash', args: { command: agentMedianCommand('Middle value.') } }] }
          : { toolCalls: [{ name: 'submit', args: { summary: 'done' } }] },
      judge: ({ n }) => {
        if (n % JUDGE_ASKS === JUDGE_ASKS - 1) throw new Error('the judge endpoint is down');
        return { content: 'Looks right to me.' };
      },
    }),
  );
  const config = testConfig({ OPENAI_BASE_URL: await fake.start(), OPENAI_API_KEY: 'k', CHAINSMITH_MODEL: 'scripted' });
  try {
    const { result } = await runOneChain(config, chain, { policy: 'model' });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/^stage 1 \(PR #\d+\) could not be judged/);
    expect(fake.requestsBy('judge')).toHaveLength(JUDGE_STAGE_WORST_REQUESTS);
    // Each attempt asked again in one conversation: the first request of an attempt starts afresh.
    const lengths = fake.requestsBy('judge').map((r) => r.messages.length);
    expect(lengths.slice(0, JUDGE_ASKS + 1)).toEqual([...Array.from({ length: JUDGE_ASKS }, (_, i) => 2 + 2 * i), 2]);
  } finally {
    await fake.stop();
  }
}, 300_000);
