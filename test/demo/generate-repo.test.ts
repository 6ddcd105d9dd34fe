// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DemoDirectoryError } from '../../src/demo/errors';
import { DEMO_HEAD, generateDemoRepo } from '../../src/demo/generate-repo';
import { git } from '../../src/git';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-demo-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('two generations in different places give the same HEAD, the pinned DEMO_HEAD', async () => {
  const first = await generateDemoRepo(join(root, 'one'));
  const second = await generateDemoRepo(join(root, 'two'));
  expect(first.head).toBe(second.head);
  expect(first.head).toBe(DEMO_HEAD);
  expect(first.path).toBe(join(root, 'one'));
});

test('an intact demo repository is returned as it is, not rebuilt', async () => {
  const dir = join(root, 'reuse');
  await generateDemoRepo(dir);
  const before = await stat(join(dir, '.git', 'config'));
  const again = await generateDemoRepo(dir);
  const after = await stat(join(dir, '.git', 'config'));
  expect(again.head).toBe(DEMO_HEAD);
  expect(after.ino).toBe(before.ino);
  expect(after.mtimeMs).toBe(before.mtimeMs);
});

test('a demo repository that was changed is rebuilt', async () => {
  const dir = join(root, 'changed');
  await generateDemoRepo(dir);
  await git(dir, ['reset', '-q', '--hard', 'HEAD~2']);
  await writeFile(join(dir, 'notes.txt'), 'scratch\n');
  const rebuilt = await generateDemoRepo(dir);
  expect(rebuilt.head).toBe(DEMO_HEAD);
  expect((await git(dir, ['status', '--porcelain'])).trim()).toBe('');
});

test('the repository has main only, with the PR landings on its first-parent line', async () => {
  const { path } = await generateDemoRepo(join(root, 'one'));
  expect((await git(path, ['branch', '--format=%(refname:short)'])).trim()).toBe('main');
  const subjects = (await git(path, ['log', '--first-parent', '--reverse', '--format=%s'])).trim().split('\n');
  expect(subjects).toEqual([
    'Start tally with mean()',
    'Merge pull request #2 from demo/median',
    'Docs: describe installation in README (#3)',
    'Fix regression from #2: median of even-length lists (#4)',
    'Merge pull request #5 from demo/variance',
    'Merge pull request #6 from demo/median-key',
  ]);
});

test('a directory that is not a demo repository is never deleted', async () => {
  const dir = join(root, 'precious');
  await mkdir(dir);
  await writeFile(join(dir, 'thesis.tex'), 'years of work\n');
  await expect(generateDemoRepo(dir)).rejects.toBeInstanceOf(DemoDirectoryError);
  await expect(stat(join(dir, 'thesis.tex'))).resolves.toBeTruthy();
});
