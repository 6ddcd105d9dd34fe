import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../../src/git';
import { stageInputProblem } from '../../src/stage/inputs';
import { ChainRepo } from '../support/chain-repo';

test('a stage found broken is asked again (fetching the missing commit mends it); a different patch is checked on its own', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-inputs-'));
  const upstream = await ChainRepo.create(join(dir, 'upstream'), { 'a.txt': 'a\n' });
  const pr = await upstream.pr(1, 'Add b', { 'b.txt': 'b\n' });
  // The same first commit (fixed dates), but not the PR's merge yet: a stale clone.
  const stale = await ChainRepo.create(join(dir, 'stale'), { 'a.txt': 'a\n' });

  expect(await stageInputProblem(stale.path, pr)).toMatch(/merge commit .* of PR #1 does not exist/);
  await git(stale.path, ['fetch', '-q', upstream.path, `${pr.mergeSha}:refs/heads/pr-1`]);
  expect(await stageInputProblem(stale.path, pr)).toBeUndefined();
  expect(await stageInputProblem(stale.path, { ...pr, patch: 'not a patch\n' })).toMatch(/does not apply/);
  expect(await stageInputProblem(stale.path, pr)).toBeUndefined();
});
