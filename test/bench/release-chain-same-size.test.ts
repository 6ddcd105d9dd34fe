// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseChain } from '../../bench/heldout/release-chain';
import { git } from '../../src/git';

/** A release's tree whose files all carry one old modification time, as unpacked archives keep theirs. */
async function release(root: string, files: Record<string, string>): Promise<string> {
  const old = new Date('2020-01-01T00:00:00Z');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
    await utimes(join(root, path), old, old);
  }
  return root;
}

/**
 * A release that changes a file's bytes but not its size or time (a version line, a one-character fix)
 * lands in its merge. Git's index would take the file for unchanged by its size and times alone where
 * the release before left it as unpacked (not rewritten by a checkout) within the same second, in an
 * inode the deleted one freed, and leave the change out of the release's commit. Each release here
 * changes the group of files the one before did not, every one of them at risk.
 */
test('a release that changes files but not their sizes or modification times lands those changes', async () => {
  const group = (name: string, n: number) =>
    Object.fromEntries([...Array(5).keys()].map((i) => [`${name}${i}.go`, `${name} ${n}\n`]));
  const releases = await Promise.all(
    [...Array(8).keys()].map(async (k) => {
      const files = { ...group('a', Math.floor((k + 1) / 2)), ...group('b', Math.floor(k / 2)) };
      const dir = await mkdtemp(join(tmpdir(), 'chainsmith-release-stat-'));
      return { version: `v1.${k}`, date: `2024-01-0${k + 1}T00:00:00Z`, dir: await release(dir, files), files };
    }),
  );
  const out = await mkdtemp(join(tmpdir(), 'chainsmith-release-chain-stat-'));
  const { repo, chain } = await releaseChain('heldout-goproxy/demo', releases, out);
  expect(chain.prs).toHaveLength(7);
  for (const [i, pr] of chain.prs.entries()) {
    const changed = (i + 1) % 2 ? 'a' : 'b';
    expect(pr.files.map((f) => f.path).sort()).toEqual(Object.keys(group(changed, 0)).sort());
    expect(await git(repo, ['show', `${pr.mergeSha}:${changed}0.go`])).toBe(releases[i + 1].files[`${changed}0.go`]);
  }
});
