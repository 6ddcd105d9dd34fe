import { baseImageTag } from '../../src/environments/images';
import { PrivateDockerd } from '../support/private-dockerd';
import { restartMidRollout } from '../support/restart-run';

/**
 * A dockerd of this file's own (its own socket, data root and exec root), so that stopping it
 * mid-rollout disturbs no other test file, and no real work beside `npm test`, on the machine's daemon.
 */
const dockerd = new PrivateDockerd();

beforeAll(async () => {
  await dockerd.start();
  await dockerd.copyImages([baseImageTag()]);
}, 300_000);

afterAll(() => dockerd.remove(), 60_000);

test('restarting dockerd mid-rollout, which takes the running sandbox with it: the chain still completes with every step exactly once', async () => {
  const run = await restartMidRollout('docker', () => dockerd.restart(), { DOCKER_HOST: dockerd.host });
  expect([run.result.status, run.result.reason]).toEqual(['accepted', undefined]);
  expect(run.notes).toEqual(run.expected);
  // Resumed steps also show the rollout ran on this daemon: a restart of one it did not use would cost none.
  expect(run.result.results[1].finalRound!.stepsResumed).toBeGreaterThan(0);
}, 300_000);
