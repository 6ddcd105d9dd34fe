import { restartDaemon, restartMidRollout } from '../support/restart-run';

/**
 * Restarts the machine's dockerd, which every other test file uses: this file runs with no other test
 * file, before them, beside the type check and the lint (jest.exclusive.config.js, scripts/test.sh).
 * The Temporal restart has a server of its own (restart-temporal.test.ts).
 */
test('restarting dockerd mid-rollout, which takes the running sandbox with it: the chain still completes with every step exactly once', async () => {
  const run = await restartMidRollout('docker', () => restartDaemon('^dockerd ', 'docker'));
  expect([run.result.status, run.result.reason]).toEqual(['accepted', undefined]);
  expect(run.notes).toEqual(run.expected);
  expect(run.result.results[1].finalRound!.stepsResumed).toBeGreaterThan(0);
}, 300_000);
