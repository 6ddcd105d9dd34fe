import type { Client } from '@temporalio/client';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { collectRuns } from '../../src/dataset/collect-runs';
import type { Chain, ChainRun } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { pythonChain } from '../support/python-chain';
import type { ChainResult } from '../../src/workflows/types';
import { testConfig } from '../support/engines';
import { runOneChain } from '../support/one-chain';

interface Ran {
  result: ChainResult;
  /** The activity types the run's history scheduled, in order. */
  activities: string[];
  run: ChainRun;
}

/**
 * Nothing is spent on a stage nothing can judge: pythonChain's #2 has no FAIL_TO_PASS test, and with
 * gold replay there is no judge model, so its chain is cut before it; a chain that starts there is skipped.
 */
describe('gold validation gates every stage before a rollout', () => {
  let chain: Chain;
  const config = testConfig();

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gate-'));
    // A name unique to this run: workflow ids derive from it, and the dev server outlives test runs.
    ({ chain } = await pythonChain(join(dir, 'shapes'), `gate-${Date.now()}/shapes`));
  });

  /** Workers stop when the chain ends, so each chain gets its own. */
  const run = async (c: Chain): Promise<Ran> =>
    (
      await runOneChain(config, c, { policy: 'gold-replay' }, async ({ result, workflowId, engines }) => ({
        result,
        activities: await scheduled(engines.client, workflowId),
        run: (
          await collectRuns(engines.client, ArtifactStore.fromConfig(config), {
            query: `WorkflowId = '${workflowId}'`,
            threshold: 0.8,
          })
        ).runs[0],
      }))
    ).inspected;

  test('a chain is cut before its first stage that nothing can judge, and runs and exports the stages before it', async () => {
    const { result, activities, run: record } = await run(chain);
    expect(result.status).toBe('accepted');
    expect(result.cut).toMatchObject({
      before: 1,
      reason:
        'stage 2 (PR #2) cannot be judged: no test of the PR fails before it and passes after it, and no judge model is configured',
    });
    expect(result.results.map((s) => [s.prNumber, s.status])).toEqual([[1, 'accepted']]);
    // The stages are validated first, one at a time, up to the first that nothing can judge (#3, past the cut, is not), and only then is anything written or rolled out.
    expect(activities.slice(0, 3)).toEqual(['validateGold', 'validateGold', 'cutChain']);
    expect(activities.filter((a) => a === 'rolloutRound')).toHaveLength(1);
    // Export selects by merge date: the run carries the dates of the stages it ran.
    expect(record).toMatchObject({ status: 'accepted', prs: [1], mergedAt: [chain.prs[0].mergedAt] });
  });

  // The skipped branch itself (no query, no rollout) is test/workflows/branches.test.ts's; here, the real reason and record.
  test('a stage that cannot be set up is never rolled out either: the chain is skipped and says why', async () => {
    const broken = {
      ...chain,
      id: `${chain.id}-broken`,
      prs: [{ ...chain.prs[0], baseSha: 'deadbeef'.repeat(5) }, chain.prs[2]],
    };
    const { result, activities, run: record } = await run(broken);
    expect(result.status).toBe('skipped');
    expect(result.reason).toMatch(
      /^stage 1 \(PR #1\) cannot be judged: invalid-inputs: the base commit deadbeef(deadbeef){4} of PR #1 does not exist in /,
    );
    expect(result.unjudgeable).toMatchObject({ stage: 0, prNumber: 1, reason: { kind: 'invalid-inputs' } });
    expect(record.unjudgeable).toEqual(result.unjudgeable);
    // Stage 1 cannot be judged: stage 2 is never validated.
    expect(activities).toEqual(['validateGold']);
    expect(record.status).toBe('skipped');
  });
});

/**
 * Issue 25: a requirement line no resolver parses (here one PR #1 adds, at PR #2's base) fails the same
 * way on every try. The stage is cut with its reason, whole, at the first attempt: not retried, and the
 * chain not failed.
 */
test('a chain is cut, not failed, before a stage whose dependencies cannot be resolved, at the first attempt', async () => {
  const config = testConfig();
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-gate-deps-'));
  const calc = 'def add(a, b):\n    return a + b\n';
  const repo = await ChainRepo.create(join(dir, 'calc'), {
    'calc.py': calc,
    'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  });
  const sub = `${calc}\n\ndef sub(a, b):\n    return a - b\n`;
  const pr1 = await repo.pr(1, 'Add sub', {
    'calc.py': sub,
    'tests/test_sub.py': 'from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n',
    'requirements.txt': 'pluggy>=1 ==2\n',
  });
  const pr2 = await repo.pr(2, 'Add mul', {
    'calc.py': `${sub}\n\ndef mul(a, b):\n    return a * b\n`,
    'tests/test_mul.py': 'from calc import mul\n\n\ndef test_mul():\n    assert mul(3, 2) == 6\n',
  });
  const chain = repo.chain(`gate-deps-${Date.now()}/calc`, [pr1, pr2]);
  const { result, inspected: history } = await runOneChain(
    config,
    chain,
    { policy: 'gold-replay' },
    ({ engines, workflowId }) => engines.client.workflow.getHandle(workflowId).fetchHistory(),
  );
  expect(result.status).toBe('accepted');
  expect(result.cut).toMatchObject({
    before: 1,
    reason: expect.stringMatching(/^stage 2 \(PR #2\) cannot be judged: dependencies-unresolvable: /),
  });
  expect(result.results.map((s) => [s.prNumber, s.status])).toEqual([[1, 'accepted']]);
  expect(result.unjudgeable).toMatchObject({
    stage: 1,
    prNumber: 2,
    reason: { kind: 'dependencies-unresolvable', exitCode: 2 },
  });
  expect(result.unjudgeable!.reason.command).toMatch(/^uv pip compile requirements\.txt /);
  expect(result.unjudgeable!.reason.tail).toContain("Couldn't parse requirement");
  // Each stage's validation ran once: nothing was retried.
  const attempts = (history.events ?? [])
    .map((e) => e.activityTaskStartedEventAttributes?.attempt)
    .filter((a) => a !== undefined && a !== null);
  expect(attempts.length).toBeGreaterThan(2);
  expect(new Set(attempts)).toEqual(new Set([1]));
});

async function scheduled(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name!);
}
