// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { extensionPaths } from '../../../src/mining/chains/extend-chains';
import type { Edge } from '../../../src/schemas';

const edge = (from: number, to: number, confidence: number): Edge => ({
  from,
  to,
  kind: 'follow-up',
  evidence: `#${from} follows #${to}`,
  confidence,
  source: { field: 'title', start: 0, end: 0 },
});
const chain = (...numbers: number[]) => ({ prs: numbers.map((number) => ({ number })) });

test('a chain grows only from its last stage, through new PRs, by the strongest link, up to the length cap', () => {
  const edges = [edge(6, 3, 0.9), edge(7, 3, 0.7), edge(8, 6, 0.8), edge(9, 2, 0.9), edge(10, 8, 0.5)];
  const fresh = new Set([6, 7, 8, 9, 10]);
  // #6 beats #7 on the link to #3; #9 builds on #2, not on the last stage; #10's link is below 0.6.
  expect(extensionPaths([chain(1, 2, 3)], edges, fresh).map((g) => g.path)).toEqual([[1, 2, 3, 6, 8]]);
  expect(extensionPaths([chain(1, 2, 3)], edges, fresh, { maxLength: 4 }).map((g) => g.path)).toEqual([[1, 2, 3, 6]]);
  expect(extensionPaths([chain(1, 2, 3)], edges, fresh, { maxLength: 3 })).toEqual([]);
  // Only new PRs grow a chain: had the earlier mine seen #6, #7 would be the one.
  expect(extensionPaths([chain(1, 2, 3)], edges, new Set([7]))).toEqual([
    { chain: chain(1, 2, 3), path: [1, 2, 3, 7] },
  ]);
});
