// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalPullRequests } from '../../src/mining/local-git';
import { lineAge } from '../../src/mining/links/line-age';
import { recordsToChains } from '../../src/mining/pipeline';
import type { Edge } from '../../src/schemas';
import { lines, ReleaseRepo, rewrite } from './release-branch';

/**
 * Lines older than the code-history window (links/line-age.ts): a later PR that names what an old
 * PR made links to it; one that rewrites old lines without naming them does not, and recent lines
 * need no name.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-old-lines-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const described = (edges: Edge[]) => edges.map(({ from, to, kind, strength, confidence }) => `${from}->${to} ${kind} ${strength} ${confidence}`);

test('a fix years later that names the function an old PR added links to it; an old line rewritten without a name does not', async () => {
  const repo = await new ReleaseRepo(join(root, 'old')).init();
  const decoder = `int decode_index(const char *text) {\n${lines('decode', 10)}}\n`;
  await repo.quickPr(1, 'Add the array decoder', '', { 'src/decoder.c': decoder });
  const store = lines('store', 12);
  await repo.quickPr(2, 'Add the store', '', { 'src/store.c': store });
  repo.advance(800);
  // #3 fixes two of #1's lines and its title names decode_index, which #1's code brought in.
  await repo.quickPr(3, 'Fix the bounds check in decode_index', '', { 'src/decoder.c': rewrite(decoder, 3, 2, 'bounded') });
  // #4 rewrites two of #2's lines, as old, and names nothing of #2's.
  await repo.quickPr(4, 'Write in batches', '', { 'src/store.c': rewrite(store, 3, 2, 'batched') });
  // Recent lines need no name: #6 rewrites what #5 wrote a day before.
  const printer = lines('printer', 12);
  await repo.quickPr(5, 'Add the printer', '', { 'src/printer.c': printer });
  await repo.quickPr(6, 'Print faster', '', { 'src/printer.c': rewrite(printer, 3, 2, 'faster') });

  const { prs, pullNumbers } = await readLocalPullRequests(repo.path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  const { edges, chains } = await recordsToChains({ name: 'app', path: repo.path }, prs, patches, { clone: repo.path, pullNumbers });
  expect(described(edges)).toEqual(['3->1 code-history strong 0.9', '6->5 code-history strong 0.8']);
  expect(edges[0].evidence).toBe('#3 changes 2 lines that #1 wrote (100% of its 4 changed lines of code); the lines are older than the window; #3 says it fixes; both name decode_index');
  expect(edges[1].evidence).not.toContain('older than the window');
  expect(chains.map((chain) => chain.prs.map((pr) => pr.number))).toEqual([[1, 3], [5, 6]]);
});

test('line age: within the window, older, or merged after the later PR; a PR the later one names is recent at any age', () => {
  const day = 86_400_000;
  expect(lineAge('2024-06-01T00:00:00Z', '2024-01-01T00:00:00Z', 365 * day, false)).toBe('recent');
  expect(lineAge('2024-06-01T00:00:00Z', '2020-01-01T00:00:00Z', 365 * day, false)).toBe('old');
  expect(lineAge('2024-06-01T00:00:00Z', '2020-01-01T00:00:00Z', 365 * day, true)).toBe('recent');
  expect(lineAge('2024-06-01T00:00:00Z', '2024-06-02T00:00:00Z', 365 * day, true)).toBe('later');
  expect(lineAge('2024-06-01T00:00:00Z', 'not a date', 365 * day, false)).toBe('later');
});
