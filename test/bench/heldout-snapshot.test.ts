// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { snapshotReleases } from '../../bench/heldout/snapshot';
import { must } from '../../bench/heldout/release';

/** A bare mirror of `github.com/acme/lib` under `root`, whose tests are `export-ignore`d, with the given tags in order. */
async function mirror(root: string, tags: string[]): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'chainsmith-snapshot-src-'));
  const git = (...args: string[]) => must('git', ['-C', work, ...args]);
  await git('init', '-q', '-b', 'main');
  await mkdir(join(work, 'tests'));
  await writeFile(join(work, '.gitattributes'), 'tests export-ignore\n');
  for (const [i, tag] of tags.entries()) {
    await writeFile(join(work, 'tests', 'test_lib.py'), `def test_version():\n    assert ${i}\n`);
    await git('add', '-A');
    await must('git', ['-C', work, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', tag], {
      env: { GIT_COMMITTER_DATE: `2024-0${i + 1}-01T00:00:00Z` },
    });
    await git('tag', tag);
  }
  const dir = join(root, 'acme+lib', 'repo');
  await must('git', ['clone', '-q', '--mirror', work, dir]);
  return dir;
}

test("a repository's snapshot gives its last semver tags' whole trees, dated by their commits", async () => {
  const root = await mkdtemp(join(tmpdir(), 'chainsmith-snapshots-'));
  const gitDir = await mirror(root, ['v1.9.0', 'v1.10.0', 'v2.0.0rc1', 'v2.0.0', 'nightly', 'v2.0.1']);
  process.env.CHAINSMITH_HELDOUT_SNAPSHOTS = root;
  const work = await mkdtemp(join(tmpdir(), 'chainsmith-snapshot-work-'));
  const releases = await snapshotReleases('github.com/acme/lib', 3, work);
  expect(releases.map((r) => [r.version, r.date?.slice(0, 10)])).toEqual([
    ['v1.10.0', '2024-02-01'],
    ['v2.0.0', '2024-04-01'],
    ['v2.0.1', '2024-06-01'],
  ]);
  // What `git archive` would leave out is there: the tree as committed.
  expect(await readdir(join(releases[0].dir, 'tests'))).toEqual(['test_lib.py']);
  expect(existsSync(join(gitDir, 'index'))).toBe(false);
});
