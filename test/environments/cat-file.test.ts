import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listTree, showFile } from '../../src/environments/cat-file';
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
});
