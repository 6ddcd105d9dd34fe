import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../../src/activities';
import { ArtifactStore } from '../../src/artifacts/store';
import { GoldTestsSchema } from '../../src/schemas';
import { SetupProgressSchema } from '../../src/setup-agent/progress';
import { buildDeps } from '../../src/workers/deps';
import type { StageCheck } from '../../src/workflows/types';
import { testConfig } from '../support/engines';
import { FakeOpenAI } from '../support/fake-openai';
import { ciReadingModel, layoutChain } from '../support/setup-layouts';

/**
 * The validateGold activity in the SDK's activity context (its real cancellation signal and heartbeat
 * details): a cancellation stops the setup agent's model call in flight, and the activity's next try,
 * given the details the cancelled one heartbeat last (as Temporal gives a retried attempt), resumes at
 * the recipe under way without asking the model again for what it already answered.
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
    const beats: unknown[] = [];
    first.on('heartbeat', (details: unknown) => beats.push(details));
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
    // Heartbeats went with every reply and the first recipe's outcome; the last is where the second recipe starts.
    const last = JSON.parse(JSON.stringify(beats[beats.length - 1])) as { setup: unknown };
    const progress = SetupProgressSchema.parse(last.setup);
    expect(progress).toMatchObject({ attempt: 1, step: 0, requests: 2, problems: [] });
    expect(progress.proposal).toBeUndefined();
    expect(progress.reasons[1]).toMatch(/^recipe 1: build-failed: .*`apt-get install -y shellcheck`/);

    release!();
    const retry = new MockActivityEnvironment({ heartbeatDetails: last, attempt: 2 });
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
  } finally {
    release?.();
    await deps.pool?.drain();
    await fake.stop();
  }
});
