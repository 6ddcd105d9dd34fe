// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../../src/demo/generate-repo';
import { linkPullRequests } from '../../../src/mining/links/references';
import { makePr } from '../make-pr';
import { extractEdges, mineLocalRepo } from '../../support/mining';

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
    {
      from: 2,
      to: 1,
      kind: 'follow-up',
      evidence: 'This builds on #1.',
      confidence: 0.9,
      // Where the reference stands: the second message, characters 24..26 ("#1").
      source: { field: 'message', index: 1, start: 24, end: 26 },
    },
  ]);
});

test.each([
  ['Revert "Add cache (#1)"', 'reverts'],
  ['This reverts the cache from #1.', 'reverts'],
  ['Reapply the cache from #1 with the race fixed', 'restores'],
  ['Restore #1 after the revert', 'restores'],
  ['Revert "Revert "Add cache (#1)""', 'restores'],
  // A number inside the reverted title is what that title named, not the reverted PR.
  ['Revert "Add tests for #1" to fix test failures', 'mentions'],
  ['Revert "Revert "Add tests for #1""', 'mentions'],
  ['Fix regression introduced by #1', 'regression-of'],
  ['Regression in #1: cache never expires', 'regression-of'],
  ['Follow up on #1: expire entries', 'follow-up'],
  ['Extends #1 to the CLI', 'follow-up'],
  ['feat: add tests for #1', 'follow-up'],
  ['Fixes #1', 'fixes'],
  ['closes: #1', 'fixes'],
  ['Fix the crash; see #1', 'mentions'],
  ['Same idea as #1', 'mentions'],
])('"%s" is %s', (title, kind) => {
  const [edge] = extractEdges([makePr(1), makePr(2, { title })]);
  expect(edge).toMatchObject({ from: 2, to: 1, kind });
});

test('a revert of a squashed revert restores the first PR and reverts the revert', () => {
  const prs = [
    makePr(3, { title: 'Add cache' }),
    makePr(13, { title: 'Revert "Add cache (#3)"' }),
    makePr(20, { title: 'Revert "Revert "Add cache (#3)" (#13)"' }),
  ];
  expect(extractEdges(prs).map(({ from, to, kind }) => `${from}->${to} ${kind}`)).toEqual([
    '13->3 reverts',
    '20->3 restores',
    '20->13 reverts',
  ]);
});

test('only the words since the previous reference qualify a reference', () => {
  const edges = extractEdges([makePr(4), makePr(9), makePr(10, { title: 'Follow-up to #4, see also #9' })]);
  expect(edges.map(({ to, kind }) => [to, kind])).toEqual([
    [4, 'follow-up'],
    [9, 'mentions'],
  ]);
});

test('issues, self-references and references into other repositories are dropped, and counted', () => {
  const body = 'Fixes #120. Landed as #3. Like other/repo#1 and page#1 and &#1;';
  const { edges, tally } = linkPullRequests([makePr(1), makePr(3, { body })], { repo: 'acme/widgets' });
  expect(edges).toEqual([]);
  expect(tally).toEqual({ pr: 0, unmergedPr: 0, issue: 1, otherRepo: 1, unknownCommit: 0, self: 1 });
});

test("what is not the author speaking of this PR links nothing: a template's HTML comment, code, a quote, a bot's comment or PR", () => {
  const body = [
    '<!-- Link the issue: Fixes #1 -->',
    'Make the cache expire. Follows up #2.',
    '```',
    'Traceback: see #3',
    '```',
    '> Someone wrote: this reverts #4',
    '',
  ].join('\n');
  const comments = [
    { kind: 'comment' as const, author: 'codecov[bot]', body: 'Coverage is unchanged since #5.' },
    { kind: 'comment' as const, author: 'reviewer', body: 'Builds on #6 nicely.' },
  ];
  const bump = makePr(8, {
    author: 'dependabot[bot]',
    body: '<a href="https://github.com/up/stream/pull/9">#1</a> Follow-up to #2',
  });
  // A bot's title still counts: a backport bot names what it carries there.
  const backport = makePr(9, {
    author: 'mergify[bot]',
    title: 'Follow-up to #3 (backport)',
    body: 'Cherry-picked from #4.',
  });
  const prs = [1, 2, 3, 4, 5, 6].map((n) => makePr(n)).concat(makePr(7, { body, comments }), bump, backport);
  const edges = extractEdges(prs);
  expect(edges.map(({ from, to, kind, source }) => [from, to, kind, source?.field])).toEqual([
    [7, 2, 'follow-up', 'body'],
    [7, 6, 'follow-up', 'comment'],
    [9, 3, 'follow-up', 'title'],
  ]);
  // Offsets still point into the text as it is.
  expect(body.slice(edges[0].source!.start, edges[0].source!.end)).toBe('#2');
});

test('the long forms of a reference to the same repository count; the repository name is case-blind', () => {
  const texts = [
    'Reverts Acme/Widgets#1',
    'Follow-up to https://github.com/acme/widgets/pull/1/files',
    'Fixes https://github.example.com/acme/widgets/issues/1',
  ];
  for (const title of texts) {
    const { edges } = linkPullRequests([makePr(1), makePr(2, { title })], { repo: 'acme/widgets' });
    expect(edges.map(({ to, kind }) => [to, kind])).toEqual([
      [1, title.split(' ')[0] === 'Reverts' ? 'reverts' : title.startsWith('Fixes') ? 'fixes' : 'follow-up'],
    ]);
  }
  expect(extractEdges([makePr(1), makePr(2, { title: 'Reverts acme/widgets#1' })])).toEqual([]);
});

test('"This reverts commit <sha>" names the PR holding that commit, by full SHA or prefix', () => {
  const one = makePr(1, { mergeSha: 'c'.repeat(40), commitShas: ['d'.repeat(40)] });
  const full = makePr(2, { messages: [`Revert "PR 1"\n\nThis reverts commit ${'c'.repeat(40)}.`] });
  const prefix = makePr(3, { messages: ['(cherry picked from commit ddddddd)'] });
  const unknown = makePr(4, { messages: ['This reverts commit eeeeeeeeee.'] });
  const { edges, tally } = linkPullRequests([one, full, prefix, unknown]);
  expect(edges.map(({ from, to, kind }) => [from, to, kind])).toEqual([
    [2, 1, 'reverts'],
    [3, 1, 'mentions'],
  ]);
  expect(tally.unknownCommit).toBe(1);
});

test("references in comments count, but weigh less than the author's own words", () => {
  const pr = makePr(2, {
    comments: [{ kind: 'review', author: 'reviewer', body: 'This is a follow-up to #1, right?' }],
  });
  const [edge] = extractEdges([makePr(1), pr]);
  expect(edge).toMatchObject({ kind: 'follow-up', confidence: 0.72, source: { field: 'comment', index: 0 } });
});

test('numbers the source knows as PRs but that were not mined are unmerged PRs, not issues', () => {
  const { tally } = linkPullRequests([makePr(1), makePr(2, { body: 'See #7 and #8' })], {
    pullNumbers: new Set([1, 2, 7]),
  });
  expect(tally).toMatchObject({ unmergedPr: 1, issue: 1 });
});

test('each pair keeps its strongest edge', () => {
  const pr = makePr(5, { title: 'Tweak parser (see #2)', body: 'Fixes a regression from #2.', messages: ['As in #2'] });
  const edges = extractEdges([makePr(2), pr]);
  expect(edges).toHaveLength(1);
  expect(edges[0]).toMatchObject({ kind: 'regression-of', confidence: 0.95, evidence: 'Fixes a regression from #2.' });
});

test("GitHub's cross-references link PRs whose texts say nothing, weakest of all, and never override words", () => {
  const one = makePr(1, { mentionedBy: [2, 3, 99] });
  const two = makePr(2);
  const three = makePr(3, { title: 'Follow-up to #1' });
  const { edges } = linkPullRequests([one, two, three]);
  expect(edges.map(({ from, to, kind, confidence }) => [from, to, kind, confidence])).toEqual([
    [2, 1, 'mentions', 0.4],
    [3, 1, 'follow-up', 0.9],
  ]);
  expect(edges[0].source).toEqual({ field: 'cross-reference', start: 0, end: 0 });
});

test('"Fix #N" said of a PR that shares no code or tests with the fix (nor tests named after its code) is only a mention: the number names an issue elsewhere', () => {
  const file = (path: string, kind: 'code' | 'test' | 'other') => ({
    path,
    kind,
    status: 'modified' as const,
    additions: 1,
    deletions: 1,
    binary: false,
  });
  const ignore = makePr(10, { files: [file('.gitignore', 'other')] });
  const parser = makePr(11, { files: [file('src/parse.c', 'code')] });
  const release = makePr(66, {
    title: 'Release 1.0',
    messages: ['fix #10, now failing on bad escapes', 'fix #11: reject bad escapes'],
    files: [file('.gitignore', 'other'), file('tests/test_parse.c', 'test')],
  });
  expect(
    extractEdges([ignore, parser, release]).map(
      ({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`,
    ),
  ).toEqual(['66->10 mentions 0.5', '66->11 fixes 0.8']);
});
