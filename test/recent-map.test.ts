// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { RecentMap } from '../src/recent-map';

test('a RecentMap keeps its most recently used keys up to its limit, whatever it is given', () => {
  const map = new RecentMap<string, number>(3);
  for (let i = 0; i < 10_000; i++) map.set(`k${i}`, i);
  expect(map.size).toBe(3);
  expect(map.get('k9996')).toBeUndefined();
  expect([map.get('k9997'), map.get('k9998'), map.get('k9999')]).toEqual([9997, 9998, 9999]);
});

test('reading a key keeps it: the one dropped is the least recently used, not the first written', () => {
  const map = new RecentMap<string, number>(2);
  map.set('a', 1);
  map.set('b', 2);
  expect(map.get('a')).toBe(1);
  map.set('c', 3);
  expect(map.get('b')).toBeUndefined();
  expect(map.get('a')).toBe(1);
  expect(map.get('c')).toBe(3);
});
