// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { whyNoEdge } from '../../bench/support/missed-link';
import { makePr } from '../mining/make-pr';

const code = {
  path: 'src/a.py',
  kind: 'code' as const,
  status: 'modified' as const,
  additions: 3,
  deletions: 1,
  binary: false,
};
const docs = { ...code, path: 'docs/a.rst', kind: 'other' as const };

test('a missed link says which gate kept its edge out: the blame window, a sweep, or none (a PR with no code is blamed too)', () => {
  const prs = [
    makePr(1, { files: [code], mergedAt: '2020-01-01T00:00:00Z' }),
    makePr(2, { files: [code], mergedAt: '2020-02-01T00:00:00Z' }),
    makePr(3, { files: [docs], mergedAt: '2020-03-01T00:00:00Z' }),
    makePr(4, { files: [code], mergedAt: '2023-01-01T00:00:00Z', title: 'Reformat with black' }),
  ];
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  expect(whyNoEdge(byNumber, 2, 1)).toBe('no gate: blame found none of its lines, or no text names it');
  // Either order: the later PR is the one that would have been blamed; one with no code is blamed as well.
  expect(whyNoEdge(byNumber, 1, 3)).toBe('no gate: blame found none of its lines, or no text names it');
  expect(whyNoEdge(byNumber, 4, 2)).toBe('1065 days apart, beyond the blame window; #4 is a sweep');
  expect(whyNoEdge(byNumber, 5, 2)).toBe('not mined: #5');
});
