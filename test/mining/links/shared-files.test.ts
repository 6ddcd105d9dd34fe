// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { recordsToChains } from '../../../src/mining/pipeline';
import { sharedFileEdges } from '../../../src/mining/links/shared-files';
import type { ChangedFile, PullRequestRecord } from '../../../src/schemas';
import { makePr } from '../make-pr';

const touch = (...paths: string[]): ChangedFile[] =>
  paths.map((path) => ({
    path,
    kind: path.endsWith('.md') ? 'other' : 'code',
    status: 'modified',
    additions: 1,
    deletions: 1,
    binary: false,
  }));

test('each PR links weakly to the PRs that last changed the same code files', () => {
  const prs = [
    makePr(1, { files: touch('src/a.py', 'src/b.py') }),
    makePr(2, { files: touch('src/a.py', 'README.md') }),
    makePr(3, { files: touch('src/a.py', 'src/b.py') }),
    makePr(4, { files: touch('README.md') }),
  ];
  expect(
    sharedFileEdges(prs).map(({ from, to, kind, confidence, evidence }) => ({ from, to, kind, confidence, evidence })),
  ).toEqual([
    { from: 2, to: 1, kind: 'shares-files', confidence: 0.2, evidence: 'both change src/a.py' },
    { from: 3, to: 2, kind: 'shares-files', confidence: 0.2, evidence: 'both change src/a.py' },
    { from: 3, to: 1, kind: 'shares-files', confidence: 0.2, evidence: 'both change src/b.py' },
  ]);
});

test('shared-file edges are off by default and never outrank what a PR says', async () => {
  const prs = [
    makePr(1, { files: touch('src/a.py') }),
    makePr(2, { files: touch('src/a.py'), title: 'Follow-up to #1' }),
    makePr(3, { files: touch('src/a.py') }),
  ];
  const patches = async (records: PullRequestRecord[]) => records.map((pr) => ({ ...pr, patch: '' }));
  const plain = await recordsToChains({ name: 'r', path: '/r' }, prs, patches);
  expect(plain.chains.map((c) => c.id)).toEqual(['r#1-2']);
  // Shared files (0.2, weak) are below the default link confidence (0.6) and strength: only a caller who lowers both chains on them.
  const weak = await recordsToChains({ name: 'r', path: '/r' }, prs, patches, {
    sharedFiles: true,
    minConfidence: 0,
    minStrength: 'weak',
  });
  expect(weak.chains.map((c) => c.id)).toEqual(['r#1-2-3']);
  expect(weak.edges.find((e) => e.from === 2)).toMatchObject({ to: 1, kind: 'follow-up' });
  expect(weak.summary.edgesByKind['shares-files']).toBe(1);
});
