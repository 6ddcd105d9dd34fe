// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { recordsToChains } from '../../../src/mining/pipeline';
import { lines, ReleaseRepo } from '../release-branch';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-restores-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('a PR that adds back what a revert took out restores the reverted PR and depends on the revert', async () => {
  const repo = await new ReleaseRepo(join(root, 'app')).init();
  const arrays = lines('array', 10);
  const tail = ['tail = last(items)', 'tail.next = item', 'item.prev = tail', 'items.tail = item'].join('\n') + '\n';
  await repo.quickPr(1, 'Add arrays', '', { 'src/array.py': arrays });
  const sha = await repo.quickPr(2, 'Use a tail pointer when appending', '', { 'src/array.py': arrays + tail });
  await repo.quickPr(3, 'Revert "Use a tail pointer when appending"', `This reverts commit ${sha}.`, {
    'src/array.py': arrays,
  });
  // Touches the same file after the revert, but adds something else.
  await repo.quickPr(4, 'Add array docs', '', {
    'src/array.py': `${arrays}"""Arrays of items, appended at the end."""\n`,
  });
  await repo.quickPr(5, 'Speed up appending', '', {
    'src/array.py': `${arrays}"""Arrays of items, appended at the end."""\n${tail}assert items.tail is item\n`,
  });

  const { prs } = await readLocalPullRequests(repo.path);
  const patches = async (records: typeof prs) => records.map((pr) => ({ ...pr, patch: '' }));
  const { edges, chains } = await recordsToChains({ name: 'app', path: repo.path }, prs, patches, { clone: repo.path });
  expect(edges.map(({ from, to, kind, confidence }) => `${from}->${to} ${kind} ${confidence}`)).toEqual([
    '3->2 reverts 0.95',
    '5->2 restores 0.85',
    '5->3 restores 0.85',
  ]);
  expect(edges[1].evidence).toBe('#5 adds back 4 of the 4 lines #3 took out when it reverted #2');
  expect(chains.map((chain) => chain.prs.map((pr) => pr.number).join('-'))).toContain('2-3-5');
});
