import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitExists, listTree, showFile } from '../../src/environments/cat-file';
import { commitDate } from '../../src/environments/repo-files';
import { bundlePath, cloneBundle, SHARED_REPOS } from '../support/real-repos';

const run = promisify(execFile);

/** What `git show` prints for the object, undefined where it fails. */
async function gitShow(repo: string, object: string): Promise<string | undefined> {
  return run('git', ['show', object], { cwd: repo, maxBuffer: 1 << 30 }).then(
    (r) => r.stdout,
    () => undefined,
  );
}

const withJinja = bundlePath('pallets+jinja') ? describe : describe.skip;
if (!bundlePath('pallets+jinja')) console.warn(`skipping: no pallets+jinja.bundle in ${SHARED_REPOS}`);

withJinja('showFile: one cat-file reader a clone, the same text as git show', () => {
  let repo: string;
  let shas: string[];
  beforeAll(async () => {
    repo = await cloneBundle('pallets+jinja');
    shas = (await run('git', ['log', '--format=%H', '-n', '300', 'HEAD'], { cwd: repo })).stdout
      .trim()
      .split('\n')
      .filter((_, i) => i % 100 === 0);
  }, 120_000);

  test('files, directories, missing and odd paths read at once and one after another match git show', async () => {
    const paths = [
      'CHANGES.rst',
      'setup.py',
      'pyproject.toml',
      'docs',
      'src/jinja2/__init__.py',
      'requirements/tests.txt',
      'no such file',
      'a b/c.txt',
      'docs/',
    ];
    const objects = shas
      .flatMap((sha) => paths.map((p) => `${sha}:${p}`))
      .concat(['not-a-revision:x', 'HEAD:line\nbreak']);
    const together = await Promise.all(objects.map((o) => showFile(repo, o)));
    const oneByOne: (string | undefined)[] = [];
    for (const o of objects) oneByOne.push(await showFile(repo, o));
    const expected = await Promise.all(objects.map((o) => gitShow(repo, o)));
    expect(together).toEqual(expected);
    expect(oneByOne).toEqual(expected);
    // Not a vacuous match: most of them are files with text.
    expect(expected.filter((t) => t && t.length > 100).length).toBeGreaterThan(objects.length / 3);
  }, 120_000);

  test('a read after the reader went idle (and exited) still answers', async () => {
    const object = `${shas[0]}:CHANGES.rst`;
    const first = await showFile(repo, object);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await showFile(repo, object)).toBe(first);
    expect(first).toBe(await gitShow(repo, object));
  }, 30_000);

  test("a commit's root listing matches git ls-tree, names git quotes included, and a missing commit fails as ls-tree does", async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'chainsmith-cat-file-'));
    try {
      await run('git', ['init', '-q'], { cwd: scratch });
      for (const name of ['plain.txt', 'naïve.txt', 'say "hi".txt', 'back\\slash'])
        await writeFile(join(scratch, name), name);
      await run('git', ['add', '-A'], { cwd: scratch });
      await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'odd names'], { cwd: scratch });
      for (const [clone, commit] of [...shas.map((sha) => [repo, sha]), [scratch, 'HEAD']]) {
        const listed = await listTree(clone, commit);
        expect(listed).toBe((await run('git', ['ls-tree', commit], { cwd: clone })).stdout);
        expect(listed.split('\n').length).toBeGreaterThan(3);
      }
      await expect(listTree(repo, 'f'.repeat(40))).rejects.toThrow(/ls-tree/);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);

  test('whether a revision is a commit, and its committer date, as git cat-file -e and git log -1 --format=%cI tell', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'chainsmith-cat-file-'));
    try {
      await run('git', ['init', '-q'], { cwd: scratch });
      await writeFile(join(scratch, 'a.txt'), 'a');
      await run('git', ['add', '-A'], { cwd: scratch });
      // A zone far from UTC, a date before 1970's tenth year: the instant is what counts, not its spelling.
      const env = {
        ...process.env,
        GIT_COMMITTER_DATE: '1975-03-01T23:30:00-0930',
        GIT_AUTHOR_DATE: '2001-01-01T00:00:00Z',
      };
      await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'old'], { cwd: scratch, env });
      await run('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'tag', '-a', '-m', 'tagged', 'v1'], {
        cwd: scratch,
      });
      const plainExists = (clone: string, rev: string) =>
        run('git', ['cat-file', '-e', `${rev}^{commit}`], { cwd: clone }).then(
          () => true,
          () => false,
        );
      const plainDate = async (clone: string, rev: string) =>
        new Date((await run('git', ['log', '-1', '--format=%cI', rev], { cwd: clone })).stdout.trim());
      const revs: Array<[string, string]> = [
        ...shas.map((sha): [string, string] => [repo, sha]),
        [repo, 'HEAD'],
        [scratch, 'HEAD'],
        [scratch, 'v1'],
        [scratch, 'HEAD^{tree}'],
        [scratch, 'HEAD:a.txt'],
        [scratch, 'f'.repeat(40)],
        [repo, 'not-a-revision'],
      ];
      const exists = await Promise.all(revs.map(([clone, rev]) => commitExists(clone, rev)));
      expect(exists).toEqual(await Promise.all(revs.map(([clone, rev]) => plainExists(clone, rev))));
      // Not vacuous: commits and non-commits both.
      expect(exists.filter(Boolean).length).toBe(shas.length + 3);
      for (const [clone, rev] of revs.filter((_, i) => exists[i]))
        expect((await commitDate(clone, rev)).toISOString()).toBe((await plainDate(clone, rev)).toISOString());
      expect((await commitDate(scratch, 'v1')).toISOString()).toBe('1975-03-02T09:00:00.000Z');
      await expect(commitDate(scratch, 'f'.repeat(40))).rejects.toThrow();
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});
