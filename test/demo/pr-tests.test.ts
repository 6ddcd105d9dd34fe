// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateDemoRepo } from '../../src/demo/generate-repo';
import { git } from '../../src/git';
import type { PullRequest } from '../../src/schemas';
import { runPytest } from './pytest';
import { mineLocalRepo } from '../support/mining';

// The demo only works as a supervision source if its tests say what its PR messages claim.
let root: string;
let checkout: string;
let prs: PullRequest[];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-demo-pytest-'));
  const { path } = await generateDemoRepo(join(root, 'tally'));
  prs = await mineLocalRepo(path);
  checkout = join(root, 'checkout');
  await git(root, ['clone', '-q', path, checkout]);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function checkOut(sha: string): Promise<void> {
  await git(checkout, ['checkout', '-q', '-f', '--detach', sha]);
  await git(checkout, ['clean', '-q', '-f', '-d']);
}

test('the full test suite passes at every first-parent commit', async () => {
  const shas = (await git(checkout, ['rev-list', '--first-parent', 'main'])).trim().split('\n');
  expect(shas).toHaveLength(6);
  for (const sha of shas) {
    await checkOut(sha);
    const run = await runPytest(checkout);
    expect({ sha, exitCode: run.exitCode, output: run.exitCode === 0 ? '' : run.output }).toEqual({
      sha,
      exitCode: 0,
      output: '',
    });
  }
});

// #2's tests cannot even import median on its base (pytest exits 2); #4 and #6 each add one test
// that fails before the change (exit 1) and passes after it.
test.each([
  [2, 2, /error/],
  [4, 1, /1 failed/],
  [6, 1, /1 failed/],
])("PR #%i's own tests fail on its base (exit %i) and pass on its merge", async (number, exitCode, summary) => {
  const pr = prs.find((candidate) => candidate.number === number) as PullRequest;
  const tests = pr.files.filter((file) => file.kind === 'test' && file.status !== 'deleted').map((file) => file.path);
  expect(tests).toEqual(['tests/test_median.py']);

  await checkOut(pr.baseSha);
  await git(checkout, ['checkout', pr.mergeSha, '--', ...tests]);
  const before = await runPytest(checkout, tests);
  expect(before.exitCode).toBe(exitCode);
  expect(before.output).toMatch(summary);

  await checkOut(pr.mergeSha);
  const after = await runPytest(checkout, tests);
  expect(after.exitCode).toBe(0);
});

test('the unrelated PRs break nothing: #5 passes its own tests and #3 changes no code', async () => {
  const variance = prs.find((pr) => pr.number === 5) as PullRequest;
  await checkOut(variance.mergeSha);
  expect((await runPytest(checkout, ['tests/test_variance.py'])).exitCode).toBe(0);
  const docs = prs.find((pr) => pr.number === 3) as PullRequest;
  expect(docs.files.map((file) => file.kind)).toEqual(['other']);
});
