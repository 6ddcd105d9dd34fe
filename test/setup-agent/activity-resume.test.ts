import { CancelledFailure } from '@temporalio/common';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { ArtifactStore } from '../../src/artifacts/store';
import { GoldTestsSchema } from '../../src/schemas';
import { activityCheckpoint, type SetupProgress } from '../../src/setup-agent/progress';
import { buildDeps } from '../../src/workers/deps';
import type { StageCheck } from '../../src/workflows/types';
import { testConfig } from '../support/engines';
import { FakeOpenAI } from '../support/fake-openai';
import { testSetup } from '../support/setup-agent';
import { ciReadingModel, layoutChain } from '../support/setup-layouts';

/**
 * The validateGold activity in the SDK's activity context (its real cancellation signal): a
 * cancellation stops the setup agent's model call in flight, and the activity's next attempt (the same
 * workflow run and activity id, as Temporal retries it) resumes at the recipe under way from the
 * progress the first saved, without asking the model again for what it already answered.
 */
test('a cancelled validateGold stops the setup agent mid-call; its retry resumes at the next recipe, asking nothing again', async () => {
  const chain = await layoutChain('script', `resume-${process.pid}`);
  let inFlight: (() => void) | undefined;
  let release: (() => void) | undefined;
  const fake = new FakeOpenAI(ciReadingModel(), {
    // The second recipe's first call is held until the test lets it go: the first try is cancelled meanwhile.
    hold: (_req, marker) =>
      marker?.round === 1 && marker.step === 0 && !release
        ? new Promise<void>((resolve) => {
            release = resolve;
            inFlight?.();
          })
        : undefined,
  });
  const config = testConfig({ OPENAI_BASE_URL: await fake.start(), OPENAI_API_KEY: 'k', CHAINSMITH_MODEL: 'scripted' });
  const deps = buildDeps(config);
  try {
    const activities = createActivities(deps);
    const store = ArtifactStore.fromConfig(config);
    const input = { chainRef: await store.putJson(chain), stage: 0, policy: 'gold-replay' as const };

    const first = new MockActivityEnvironment();
    inFlight = () => first.cancel();
    let releasedBeforeEnd = false;
    await expect(
      first.run(activities.validateGold, input).finally(() => (releasedBeforeEnd = release === undefined)),
    ).rejects.toBeInstanceOf(CancelledFailure);
    // The activity ended while the model still held its request: the call was stopped, not waited out.
    expect(release).toBeDefined();
    expect(releasedBeforeEnd).toBe(false);
    const before = fake.requests.map((r) => [r.marker?.round, r.marker?.step]);
    expect(before).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    // Saved after every reply and the first recipe's outcome: the last is where the second recipe starts.
    const progress = (await activityCheckpoint(store, first.context.info)!.load())!;
    expect(progress).toMatchObject({ attempt: 1, step: 0, requests: 2, problems: [] });
    expect(progress.proposal).toBeUndefined();
    expect(progress.reasons[1]).toMatch(/^recipe 1: build-failed: .*`apt-get install -y shellcheck`/);

    release!();
    const retry = new MockActivityEnvironment({ attempt: 2 });
    const check = (await retry.run(activities.validateGold, input)) as StageCheck;
    const gold = await store.getJson(check.goldTestsRef!, GoldTestsSchema);
    expect(gold).toMatchObject({ status: 'verified', setup: { outcome: 'rescued', attempts: 2, requests: 4 } });
    expect(gold.setup!.reasons).toEqual(progress.reasons);
    // Only the second recipe's calls were made again: the one stopped in flight, resent as it was, and the proposal.
    const after = fake.requests.slice(before.length);
    expect(after.map((r) => [r.marker?.round, r.marker?.step])).toEqual([
      [1, 0],
      [1, 1],
    ]);
    expect(after[0].body.messages).toEqual(fake.requests[2].body.messages);
    // The stage has its record: the progress is gone.
    expect(await activityCheckpoint(store, retry.context.info)!.load()).toBeUndefined();
  } finally {
    release?.();
    await deps.pool?.drain();
    await fake.stop();
  }
});

test('progress saved between a proposal and its build resumes by building that proposal, with no model call', async () => {
  const chain = await layoutChain('script', `built-${process.pid}`);
  const fake = new FakeOpenAI(ciReadingModel());
  try {
    const setup = await testSetup({ baseUrl: await fake.start() });
    const saved: SetupProgress[] = [];
    const gold = await setup.agent.goldTests(chain, 0, { save: (p) => void saved.push(p) });
    expect(gold.setup).toMatchObject({ outcome: 'rescued', attempts: 2, requests: 4 });
    // After each of the four replies, and after the first recipe's outcome.
    expect(saved.map((p) => [p.attempt, p.step, !!p.proposal])).toEqual([
      [0, 1, false],
      [0, 2, true],
      [1, 0, false],
      [1, 1, false],
      [1, 2, true],
    ]);

    // As if the process died while the second recipe was building (before the recipe was saved): another one, same store.
    const asked = fake.requests.length;
    await rm(join(setup.dir, 'recipes'), { recursive: true });
    const again = await testSetup({ baseUrl: await fake.start(), dir: setup.dir });
    const resumed = await again.agent.goldTests(chain, 0, { resume: JSON.parse(JSON.stringify(saved[4])) });
    expect(resumed).toMatchObject({ status: 'verified', setup: { outcome: 'rescued', attempts: 2, requests: 4 } });
    expect(resumed.setup!.reasons).toEqual(gold.setup!.reasons);
    expect(fake.requests).toHaveLength(asked);
    // Progress of another stage is not taken for this one's.
    await rm(join(setup.dir, 'recipes'), { recursive: true });
    const other = await testSetup({ baseUrl: await fake.start(), dir: setup.dir });
    await other.agent.goldTests(chain, 0, { resume: { ...saved[4], baseSha: chain.prs[1].baseSha } });
    expect(fake.requests.length).toBeGreaterThan(asked);
  } finally {
    await fake.stop();
  }
});
