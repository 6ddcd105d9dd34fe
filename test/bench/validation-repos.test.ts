// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateRun } from '../../bench/validation/child';
import { mergeRuns } from '../../bench/validation/child';
import { bundledRepos, languageOf } from '../../bench/validation/repos';
import { git } from '../../src/git';
import { ChainRepo } from '../support/chain-repo';

/**
 * The validation bench measures whatever repositories ../shared/repos holds: each one's language is
 * the one most of its own code files are in, what it vendors left out.
 */
test("a repository's language is its own code's, not what it vendors or its scripts'", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-bench-language-'));
  try {
    const vendored = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`vendor/zlib/f${i}.c`, 'int f(void) { return 0; }\n']),
    );
    const repo = await ChainRepo.create(join(dir, 'py'), {
      'pkg/__init__.py': '',
      'pkg/core.py': 'X = 1\n',
      'tests/test_core.py': 'def test_x():\n    assert True\n',
      'scripts/build.sh': 'true\n',
      'src/speedups.c': 'int g(void) { return 1; }\n',
      ...vendored,
    });
    expect(await languageOf(repo.path)).toBe('python');
    const c = await ChainRepo.create(join(dir, 'c'), { 'a.c': '', 'a.h': '', 'gen.py': '' });
    expect(await languageOf(c.path)).toBe('c');
    const none = await ChainRepo.create(join(dir, 'none'), { 'README.md': '# nothing\n' });
    expect(await languageOf(none.path)).toBe('unknown');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const run = (over: Partial<ValidateRun>): ValidateRun => ({
  records: [],
  stagesDone: 0,
  exitCode: 0,
  processCpu: 0,
  containerCpu: 0,
  buildCpu: 0,
  goldCpu: 0,
  goldSandboxes: 0,
  goldBrief: 0,
  goldUnread: 0,
  imagesBuilt: [],
  buildsFailed: [],
  wallSeconds: 0,
  loadAverage: 0,
  tail: '',
  ...over,
});

test("two repositories of one language are one run: CPU and stages summed, the load weighted by each run's time", () => {
  const merged = mergeRuns([
    run({ stagesDone: 3, processCpu: 10, containerCpu: 20, imagesBuilt: ['a'], wallSeconds: 100, loadAverage: 2 }),
    run({
      stagesDone: 1,
      processCpu: 5,
      exitCode: 75,
      imagesBuilt: ['b'],
      wallSeconds: 300,
      loadAverage: 6,
      tail: 'x',
    }),
  ]);
  expect(merged).toMatchObject({
    stagesDone: 4,
    processCpu: 15,
    containerCpu: 20,
    exitCode: 75,
    imagesBuilt: ['a', 'b'],
    wallSeconds: 400,
    loadAverage: 5,
    tail: 'x',
  });
});

/** A directory of repositories to measure: bundles beside git directories laid out as a snapshot's (`OWNER+NAME/repo`). */
test('the bench measures every bundle and every snapshot git directory of its repositories directory, each cloned with its pull refs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-bench-repos-'));
  try {
    const go = await ChainRepo.create(join(dir, 'src-go'), {
      'go.mod': 'module example.test/m\n',
      'm.go': 'package m\n',
    });
    await git(go.path, ['update-ref', 'refs/pull/7/head', 'HEAD']);
    const shelf = join(dir, 'shelf');
    await git(dir, ['clone', '-q', '--mirror', go.path, join(shelf, 'acme+gomod', 'repo')]);
    const py = await ChainRepo.create(join(dir, 'src-py'), { 'lib.py': 'X = 1\n' });
    await git(py.path, ['bundle', 'create', join(shelf, 'acme+pylib.bundle'), '--all']);
    const repos = await bundledRepos(shelf);
    expect(repos.map(({ name, language }) => ({ name, language }))).toEqual([
      { name: 'acme/gomod', language: 'go' },
      { name: 'acme/pylib', language: 'python' },
    ]);
    expect((await git(repos[0].clone, ['rev-parse', 'refs/pull/7/head'])).trim()).toBe(await go.head());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
