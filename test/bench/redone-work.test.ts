// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import type { WorkRecord } from '../../src/work-journal';
import { redoneByKill } from '../../bench/support/redone-work';

const at = (ev: 'start' | 'end', id: string, kind: WorkRecord['kind'], t: number, pid: number): WorkRecord => ({
  ev,
  id,
  kind,
  activity: 'validateGold',
  attempt: 1,
  pid,
  t,
});

test('redone work goes to the kill that lost the attempt before it: finished, under way, no unit, and none without a kill', () => {
  const journal: WorkRecord[] = [
    // Worker 1: test a finished at 2 s, test b under way, an open finished; killed at 5 s.
    at('start', 'a', 'test', 0, 1),
    at('end', 'a', 'test', 2000, 1),
    at('start', 'b', 'test', 3000, 1),
    at('start', 'o', 'open', 0, 1),
    at('end', 'o', 'open', 500, 1),
    // Worker 2 started, killed again at 6 s before it did anything; worker 3 redoes all three at 10 s.
    at('start', 'a', 'test', 10_000, 3),
    at('end', 'a', 'test', 12_000, 3),
    at('start', 'b', 'test', 12_000, 3),
    at('end', 'b', 'test', 13_000, 3),
    at('start', 'o', 'open', 10_000, 3),
    at('end', 'o', 'open', 10_500, 3),
    // Run twice by one worker with no kill between: no kill explains it.
    at('start', 'c', 'model', 14_000, 3),
    at('end', 'c', 'model', 14_100, 3),
    at('start', 'c', 'model', 14_200, 3),
    at('end', 'c', 'model', 14_300, 3),
  ];
  const { perKill, withoutKill } = redoneByKill(journal, [5000, 6000]);
  expect(perKill.map((k) => [k.units, k.completed, k.seconds])).toEqual([
    // a (2 s, finished), b (2 s until the kill), o (0.5 s, no unit): all lost by the first kill.
    [2, 1, 4.5],
    [0, 0, 0],
  ]);
  expect([...perKill[0].what]).toEqual([
    ['validateGold/test', 1],
    ['validateGold/test (under way)', 1],
  ]);
  expect(withoutKill).toBe(1);
});
