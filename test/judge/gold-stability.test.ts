import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { git } from '../../src/git';
import { goldTestsFor, type GoldValidationDeps } from '../../src/judge/gold-validation';
import { flakyRates, flakyTests, formatFlakyRates } from '../../src/judge/gold-stability';
import { gitPatch } from '../../src/mining/landings/patch';
import type { Chain, PullRequest } from '../../src/schemas';
import { ChainRepo } from '../support/chain-repo';
import { ownSandboxes } from '../support/containers';
import { testEnvironments } from '../support/environments';
import { changedFiles } from '../support/mining';

const docker = new Docker();
let dir: string;
let deps: GoldValidationDeps;

const PYPROJECT =
  '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shapes"\nversion = "0.1.0"\n';
const AREA = 'def square(side):\n    return side * side\n';
const CIRCLE = `${AREA}\n\ndef circle(radius):\n    return 3.14159 * radius * radius\n`;
/**
 * Passes on every other run of the sandbox: a counter kept outside the repository (in /tmp of the
 * container), which no checkout resets. It fails at the base (no circle), passes on the first run after
 * the gold change and fails on the second.
 */
const FLIPS =
  'def test_circle_flips():\n    import os\n    path = "/tmp/chainsmith-flaky-counter"\n' +
  '    n = int(open(path).read()) if os.path.exists(path) else 0\n    open(path, "w").write(str(n + 1))\n' +
  '    assert round(area.circle(1), 2) == 3.14 and n % 2 == 1\n';

async function repository(name: string): Promise<ChainRepo> {
  return ChainRepo.create(join(dir, name), {
    'pyproject.toml': PYPROJECT,
    'shapes/__init__.py': '',
    'shapes/area.py': AREA,
    'tests/test_area.py': 'from shapes import area\n\n\ndef test_square():\n    assert area.square(3) == 9\n',
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chainsmith-gold-stability-'));
  deps = {
    docker,
    store: new ArtifactStore(join(dir, 'artifacts')),
    sandbox: { memoryMb: 512, pidsLimit: 128 },
    environments: testEnvironments(docker),
    goldRuns: 2,
  };
});

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

test('outcomes that differ between runs are flaky', () => {
  const run = (a: 'passed' | 'failed', b: 'passed' | 'failed') => [
    { id: 'a', outcome: a },
    { id: 'b', outcome: b },
    { id: 'c', outcome: 'passed' as const },
  ];
  expect(flakyTests([run('passed', 'passed'), run('failed', 'passed')])).toEqual(['a']);
  // A test one run does not name (its output cut) is not taken for flaky.
  expect(flakyTests([run('passed', 'failed'), [{ id: 'a', outcome: 'passed' }]])).toEqual([]);
  expect(flakyTests([run('passed', 'failed')])).toEqual([]);
  // Per repository, among stages whose tests ran twice or more.
  const record = (repo: string, flaky: string[], goldRuns = 2) => ({
    command: '',
    failToPass: [],
    passToPass: [],
    brokenOnGold: [],
    repo,
    flaky,
    goldRuns,
  });
  const records = [record('a/x', ['t1', 't2']), record('a/x', []), record('a/x', [], 1), record('b/y', [])];
  expect(flakyRates(records)).toEqual([
    { repo: 'a/x', checked: 2, flaky: 1, tests: 2 },
    { repo: 'b/y', checked: 1, flaky: 0, tests: 0 },
  ]);
  expect(formatFlakyRates(records)).toMatch(/a\/x: 1 of 2 stages had a flaky test \(50%\), 2 flaky tests/);
});

test('a test that passes on alternate runs after the gold change is flaky and in neither list; a stage only it verified has no verifying test', async () => {
  const repo = await repository('flaky');
  const both = await repo.pr(1, 'Add the area of a circle', {
    'shapes/area.py': CIRCLE,
    'tests/test_circle.py': `from shapes import area\n\n\ndef test_circle():\n    assert round(area.circle(2), 1) == 12.6\n\n\n${FLIPS}`,
  });
  const t = (name: string) => `tests/test_circle.py::${name}`;
  const gold = await goldTestsFor(deps, repo.chain('gen/flaky', [both]), 0);
  expect(gold).toMatchObject({
    status: 'verified',
    failToPass: [t('test_circle')],
    flaky: [t('test_circle_flips')],
    goldRuns: 2,
  });
  expect([...gold.passToPass, ...gold.brokenOnGold]).not.toContain(t('test_circle_flips'));

  const alone = await repository('flaky-alone');
  const only = await alone.pr(1, 'Add the area of a circle', {
    'shapes/area.py': CIRCLE,
    'tests/test_circle.py': `from shapes import area\n\n\n${FLIPS}`,
  });
  const unstable = await goldTestsFor(deps, alone.chain('gen/flaky-alone', [only]), 0);
  expect(unstable).toMatchObject({
    status: 'no-verifying-test',
    failToPass: [],
    passToPass: [],
    flaky: [t('test_circle_flips')],
  });
  expect(unstable.problem).toMatch(/FAIL_TO_PASS tests are flaky/);
  expect(unstable.reason).toMatchObject({
    kind: 'flaky',
    summary: expect.stringContaining('test_circle_flips'),
    command: expect.stringContaining('pytest'),
  });
  // With one run after the change, the same test is taken at its first word.
  const once = await goldTestsFor({ ...deps, goldRuns: 1 }, alone.chain('gen/flaky-alone', [only]), 0);
  expect(once).toMatchObject({ status: 'verified', failToPass: [t('test_circle_flips')], flaky: [] });
});

/**
 * A PR that changes only its tests runs the same tree before and after: a test that fails at the first
 * run of the sandbox and passes after it (state kept in the container's /tmp) changed its outcome by
 * chance, not by the change.
 */
test('a PR that changes only its tests: a test failing before and passing after on the same tree is flaky, not FAIL_TO_PASS', async () => {
  const repo = await repository('tests-only');
  const firstFails =
    'def test_first_run_fails():\n    import os\n    path = "/tmp/chainsmith-first-run"\n' +
    '    first = not os.path.exists(path)\n    open(path, "w").write("ran")\n    assert not first\n';
  const pr = await repo.pr(1, 'Test the square of zero', {
    'tests/test_zero.py': `from shapes import area\n\n\ndef test_zero():\n    assert area.square(0) == 0\n\n\n${firstFails}`,
  });
  const t = (name: string) => `tests/test_zero.py::${name}`;
  const gold = await goldTestsFor(deps, repo.chain('gen/tests-only', [pr]), 0);
  expect(gold).toMatchObject({
    status: 'no-verifying-test',
    failToPass: [],
    flaky: [t('test_first_run_fails')],
  });
  expect(gold.passToPass).toContain(t('test_zero'));
  expect(gold.reason).toMatchObject({ kind: 'flaky', summary: expect.stringContaining('test_first_run_fails') });
});

test('a PR whose tests already pass with an empty patch on its starting state (the earlier stage carried in) has no verifying test', async () => {
  const repo = await repository('empty-patch');
  const base = await repo.head();
  const first = await repo.pr(1, 'Add the area of a circle', { 'shapes/area.py': CIRCLE });
  // #2 was written beside #1, on the same base, and only tests what #1 adds; it is merged after #1.
  await repo.checkout(base);
  const head = await repo.commit('Test the circle', {
    'tests/test_circle.py':
      'from shapes import area\n\n\ndef test_unit_circle():\n    assert round(area.circle(1), 2) == 3.14\n',
  });
  await repo.checkout(first.mergeSha);
  await git(
    repo.path,
    ['-c', 'user.name=Ada', '-c', 'user.email=ada@example.test', 'merge', '-q', '--no-ff', '-m', 'Merge #2', head],
    {
      env: { GIT_AUTHOR_DATE: '1672600000 +0000', GIT_COMMITTER_DATE: '1672600000 +0000' },
    },
  );
  const mergeSha = await repo.head();
  const second: PullRequest = {
    ...first,
    number: 2,
    title: 'Test the circle',
    messages: ['Test the circle'],
    landing: 'merge',
    baseSha: base,
    mergeSha,
    files: await changedFiles(repo.path, base, head),
    patch: await gitPatch(repo.path, base, head),
  };
  const chain: Chain = repo.chain('gen/empty-patch', [first, second]);
  const gold = await goldTestsFor(deps, chain, 1);
  // At its base the test fails (no circle yet), after the merge it passes; but an agent that changes nothing starts with #1 carried in.
  expect(gold).toMatchObject({
    status: 'no-verifying-test',
    failToPass: [],
    passToPass: ['tests/test_circle.py::test_unit_circle'],
    checks: { carry: 'clean' },
  });
  expect(gold.problem).toMatch(/already pass with an empty patch: tests\/test_circle\.py::test_unit_circle/);
  expect(gold.reason).toMatchObject({ kind: 'no-verifying-test', summary: expect.stringContaining('empty patch') });
});
