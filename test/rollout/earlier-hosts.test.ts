import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdtemp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActivities } from '../../src/activities';
import { ArtifactStore } from '../../src/artifacts/store';
import { templateQueries } from '../../src/queries/template';
import type { RoundProgress } from '../../src/rollout/round';
import type { RoundResult } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { testConfig } from '../support/engines';
import { buildDeps } from '../../src/workers/deps';

test('a round retried after its worker died elsewhere names that host, so the chain cleans up there too', async () => {
  const config = testConfig();
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-hosts-')), 'app'), {
    'README.md': '# app\n',
  });
  const chain = repo.chain('hosts/app', [await repo.pr(1, 'Say more', { 'README.md': '# app\n\nmore\n' })]);
  const store = ArtifactStore.fromConfig(config);
  // What the last heartbeat of the attempt before said: it ran on host-b, after one on host-a died.
  const previous: RoundProgress = {
    stage: 0,
    round: 0,
    step: 3,
    promptTokens: 0,
    completionTokens: 0,
    host: 'host-b',
    earlierHosts: ['host-a', hostname()],
  };
  const env = new MockActivityEnvironment({ attempt: 3, heartbeatDetails: previous });
  const beats: RoundProgress[] = [];
  env.on('heartbeat', (d: RoundProgress) => beats.push(d));
  const deps = buildDeps(config);
  const activities = createActivities(deps);
  const result = (await env
    .run(activities.rolloutRound, {
      runKey: `hosts-${Date.now()}/run`,
      chainRef: await store.putJson(chain),
      queriesRef: await store.putJson(templateQueries(chain)),
      stage: 0,
      round: 0,
      policy: 'gold-replay' as const,
    })
    .finally(() => deps.pool?.drain())) as RoundResult;

  expect(result.host).toBe(hostname());
  expect(result.earlierHosts?.sort()).toEqual(['host-a', 'host-b']);
  // A crash of this attempt too would leave the next one the whole list.
  expect(beats.length).toBeGreaterThan(0);
  for (const beat of beats) expect(beat).toMatchObject({ host: hostname(), earlierHosts: ['host-a', 'host-b'] });
});
