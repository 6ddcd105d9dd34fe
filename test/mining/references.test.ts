import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { mineLocalRepo } from '../../src/mining/local-git';
import { extractEdges } from '../../src/mining/references';
import { makePr } from './make-pr';

test('the demo links #4 to #2 as a regression and #6 to #4 as a follow-up, nothing else', async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-references-'));
  try {
    const { path } = await generateDemoRepo(join(root, 'tally'));
    const edges = extractEdges(await mineLocalRepo(path));
    expect(edges.map(({ from, to, kind }) => ({ from, to, kind }))).toEqual([
      { from: 4, to: 2, kind: 'regression-of' },
      { from: 6, to: 4, kind: 'follow-up' },
    ]);
    expect(edges[0].evidence).toBe('Fix regression from #2: median of even-length lists');
    expect(edges[1].confidence).toBe(0.9);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a reference found only in the PR branch commits still counts', () => {
  const prs = [
    makePr(1),
    makePr(2, { title: 'Tidy up', messages: ['Merge pull request #2 from x/y', 'Tidy up\n\nThis builds on #1.'] }),
  ];
  expect(extractEdges(prs)).toEqual([
    { from: 2, to: 1, kind: 'follow-up', evidence: 'This builds on #1.', confidence: 0.9 },
  ]);
});

test.each([
  ['Revert "Add cache (#1)"', 'reverts'],
  ['This reverts the cache from #1.', 'reverts'],
  ['Reapply the cache from #1 with the race fixed', 'restores'],
  ['Restore #1 after the revert', 'restores'],
  ['Fix regression introduced by #1', 'regression-of'],
  ['Regression in #1: cache never expires', 'regression-of'],
  ['Follow up on #1: expire entries', 'follow-up'],
  ['Extends #1 to the CLI', 'follow-up'],
  ['Fixes #1', 'fixes'],
  ['closes: #1', 'fixes'],
  ['Fix the crash; see #1', 'mentions'],
  ['Same idea as #1', 'mentions'],
])('"%s" is %s', (title, kind) => {
  const [edge] = extractEdges([makePr(1), makePr(2, { title })]);
  expect(edge).toMatchObject({ from: 2, to: 1, kind });
});

test('only the words since the previous reference qualify a reference', () => {
  const edges = extractEdges([makePr(4), makePr(9), makePr(10, { title: 'Follow-up to #4, see also #9' })]);
  expect(edges.map(({ to, kind }) => [to, kind])).toEqual([
    [4, 'follow-up'],
    [9, 'mentions'],
  ]);
});

test('issues, self-references and references into other repositories are dropped', () => {
  const body = 'Fixes #120. Landed as #3. Like other/repo#1 and page#1 and &#1;';
  expect(extractEdges([makePr(1), makePr(3, { body })])).toEqual([]);
});

test('each pair keeps its strongest edge', () => {
  const pr = makePr(5, { title: 'Tweak parser (see #2)', body: 'Fixes a regression from #2.', messages: ['As in #2'] });
  const edges = extractEdges([makePr(2), pr]);
  expect(edges).toHaveLength(1);
  expect(edges[0]).toMatchObject({ kind: 'regression-of', confidence: 0.95, evidence: 'Fixes a regression from #2.' });
});
