// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mineToFiles } from '../../src/mining/output/mine-to-files';
import { FakeGitHub, type FakeRepo } from '../support/fake-github';
import { fakeRepoFromClone } from './github-fixtures';
import { growingHistory } from './growing-history';

let root: string;
let clone: string;
let fake: FakeGitHub;
let baseUrl: string;
let repo: FakeRepo;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-incremental-gh-'));
  clone = join(root, 'parser');
  await growingHistory(false).write(clone);
  repo = await fakeRepoFromClone('acme', 'parser', clone);
  fake = new FakeGitHub([repo], { token: 'secret' });
  baseUrl = await fake.start();
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
});

const mine = () =>
  mineToFiles(
    { github: 'acme/parser', out: join(root, 'chains.jsonl'), refresh: true },
    {
      dataDir: root,
      env: { CHAINSMITH_GITHUB_URL: baseUrl, GITHUB_TOKEN: 'secret' },
      warn: () => undefined,
      secondMs: 5,
    },
  );

const compared = () => fake.requests.filter((r) => r.path.includes('/compare/')).length;

test('through the API, a rerun patches only the new chain members and grows the chain a new PR builds on', async () => {
  const first = await mine();
  expect(first.chains.map((chain) => chain.id)).toEqual(['acme/parser#1-2-3', 'acme/parser#4-5']);
  expect(compared()).toBe(5);

  // The PRs merged since appear on GitHub.
  const grown = await fakeRepoFromClone('acme', 'parser', (await growingHistory(true).write(clone), clone));
  repo.pulls.splice(0, repo.pulls.length, ...grown.pulls);
  for (const [sha, commit] of grown.commits) repo.commits.set(sha, commit);
  fake.requests.length = 0;

  const second = await mine();
  // Without a clone there is no code history, so #9 links nothing; #6 grows 1 → 2 → 3, #7 → #8 is new.
  expect(second.added.map((chain) => chain.id)).toEqual(['acme/parser#1-2-3-6', 'acme/parser#7-8']);
  expect(second.chains).toHaveLength(4);
  expect(second.summary.incremental).toMatchObject({ newPrs: 4, chainsAdded: 2, chainsExtended: 1 });
  // The earlier chain members' patches came from the chains file: GitHub was asked for #6, #7 and #8 only.
  expect(compared()).toBe(3);
});
