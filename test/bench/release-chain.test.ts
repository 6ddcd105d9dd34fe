// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { chown, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseChain } from '../../bench/heldout/release-chain';
import { git } from '../../src/git';

async function tree(root: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

test('releases become a history of merged PRs: each merge holds its release whole, dropped and ignored files included', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-release-chain-'));
  const releases = [
    {
      version: '1.0',
      date: '2024-01-01T00:00:00Z',
      dir: await tree(join(dir, 'r1'), { 'lib.py': 'A = 1\n', 'old.py': 'gone later\n', '.gitignore': 'build/\n' }),
    },
    {
      version: '1.1',
      date: '2024-02-01T00:00:00Z',
      dir: await tree(join(dir, 'r2'), {
        'lib.py': 'A = 2\n',
        'tests/test_lib.py': 'def test(): pass\n',
        '.gitignore': 'build/\n',
        'build/x.txt': 'shipped\n',
      }),
    },
    { version: '1.2', dir: await tree(join(dir, 'r3'), { 'lib.py': 'A = 3\n' }) },
  ];
  const { repo, chain } = await releaseChain('heldout-pypi/demo', releases, join(dir, 'out'));

  expect(chain.prs.map((p) => p.number)).toEqual([1, 2]);
  const [first, second] = chain.prs;
  expect((await git(repo, ['ls-tree', '-r', '--name-only', first.mergeSha])).trim().split('\n').sort()).toEqual([
    '.gitignore',
    'build/x.txt',
    'lib.py',
    'tests/test_lib.py',
  ]);
  expect(first.files.find((f) => f.path === 'old.py')?.status).toBe('deleted');
  expect(first.files.find((f) => f.path === 'tests/test_lib.py')?.kind).toBe('test');
  // Each merge's first parent is the one before it on main, its second the PR's head (refs/pull/N/head).
  expect((await git(repo, ['rev-parse', `${second.mergeSha}^1`])).trim()).toBe(first.mergeSha);
  expect(second.baseSha).toBe(first.mergeSha);
  expect((await git(repo, ['rev-parse', 'refs/pull/2/head'])).trim()).toBe(second.headSha);
  expect((await git(repo, ['show', `${second.mergeSha}:lib.py`])).trim()).toBe('A = 3');
  expect(first.mergedAt).toBe('2024-02-01T00:00:00Z');
  // An undated release is dated today, after the dated ones.
  expect(Date.parse(second.mergedAt)).toBeGreaterThan(Date.parse(first.mergedAt));
  expect(chain.edges).toEqual([expect.objectContaining({ from: 2, to: 1 })]);
});

const asRoot = process.getuid?.() === 0 ? test : test.skip;

asRoot('releases packed by another user become a repository the runner owns, one PR a release', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-release-owner-'));
  // An archive unpacked by root keeps its packager's owner, top directory included.
  const release = async (version: string) => {
    const root = await tree(join(dir, version), { 'pkg/version.py': `VERSION = '${version}'\n` });
    await chown(root, 1001, 1001);
    return { version, dir: root };
  };
  const { repo, chain } = await releaseChain(
    'acme/pkg',
    [await release('1.0'), await release('1.1')],
    join(dir, 'out'),
  );
  expect(chain.prs.map((pr) => pr.files.map((f) => f.path))).toEqual([['pkg/version.py']]);
  expect(await git(repo, ['show', 'main:pkg/version.py'])).toBe("VERSION = '1.1'\n");
});
