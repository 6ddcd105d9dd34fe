// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MineResult } from '../../../src/mining/output/mine-result';
import { mineToFiles, type MineToFilesOptions } from '../../../src/mining/output/mine-to-files';
import { readChains } from '../../../src/mining/output/chains-file';
import { RateLimitError } from '../../../src/mining/errors';
import { readLocalPullRequests } from '../../../src/mining/landings/local-git';
import { withLocalPatches } from '../../../src/mining/landings/local-patches';
import { recordsToChains } from '../../../src/mining/pipeline';
import { linkPullRequests } from '../../../src/mining/links/references';
import { FakeGitHub, type FakeRepo } from '../../support/fake-github';
import { fakeRepoFromClone } from '../github-fixtures';
import { widgetsStory } from '../story';

let root: string;
let clone: string;
let fake: FakeGitHub;
let baseUrl: string;
let repo: FakeRepo;
const warnings: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-github-'));
  clone = join(root, 'widgets');
  await widgetsStory('squash').write(clone);
  repo = await fakeRepoFromClone('acme', 'widgets', clone);
  // What only GitHub knows: a review comment that links #11 to #40, an issue #11 closes, a bot account.
  const eleven = repo.pulls.find((p) => p.number === 11)!;
  eleven.reviews = [
    {
      user: 'reviewer',
      body: 'Looks good.',
      comments: [{ user: 'reviewer', body: 'This is a follow-up to #40 as well.' }],
    },
  ];
  eleven.closingIssues = [3];
  // GitHub's timeline: #50 mentioned #10 somewhere the miner does not read; so did issue #3 and another repository's #7.
  repo.pulls.find((p) => p.number === 10)!.mentionedIn = [
    { kind: 'PullRequest', number: 50 },
    { kind: 'Issue', number: 3 },
    { kind: 'PullRequest', number: 7, repo: 'other/lib' },
  ];
  fake = new FakeGitHub([repo], { token: 'secret' });
  baseUrl = await fake.start();
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  fake.requests.length = 0;
  warnings.length = 0;
});

async function mine(
  dataDir: string,
  opts: Partial<MineToFilesOptions> = {},
  env: Record<string, string> = { GITHUB_TOKEN: 'secret' },
): Promise<MineResult> {
  return mineToFiles(
    { github: 'acme/widgets', out: join(dataDir, 'chains.jsonl'), ...opts },
    { dataDir, env: { CHAINSMITH_GITHUB_URL: baseUrl, ...env }, warn: (m) => warnings.push(m), secondMs: 5 },
  );
}

test('the API mines the same PRs, links and chains as the clone, plus what only GitHub knows, in a few requests', async () => {
  const dataDir = await mkdtemp(join(root, 'run-'));
  const viaApi = await mine(dataDir, { clone });
  const local = await readLocalPullRequests(clone);
  const viaClone = await recordsToChains(
    { name: 'acme/widgets', path: clone },
    local.prs,
    (prs) => withLocalPatches(clone, prs),
    {
      repo: 'acme/widgets',
      pullNumbers: local.pullNumbers,
    },
  );

  expect(viaApi.records.map((pr) => pr.number)).toEqual(local.prs.map((pr) => pr.number));
  expect(viaApi.records.map((pr) => [pr.baseSha, pr.mergeSha])).toEqual(
    local.prs.map((pr) => [pr.baseSha, pr.mergeSha]),
  );
  const pairs = (edges: { from: number; to: number; kind: string }[]) =>
    edges.map(({ from, to, kind }) => `${from}->${to} ${kind}`);
  // The review comment adds one edge, weighted as someone else's words; everything else agrees.
  expect(pairs(viaApi.chains.flatMap((c) => c.edges))).toEqual(
    expect.arrayContaining(pairs(viaClone.chains.flatMap((c) => c.edges))),
  );
  const extra = viaApi.records.find((pr) => pr.number === 11)!;
  expect(extra.closingIssues).toEqual([3]);
  expect(viaApi.records.find((pr) => pr.number === 10)?.mentionedBy).toEqual([50]);
  const apiEdges = linkPullRequests(viaApi.records, { repo: 'acme/widgets' }).edges;
  expect(apiEdges.find((e) => e.from === 50 && e.to === 10)).toMatchObject({
    kind: 'mentions',
    confidence: 0.4,
    source: { field: 'cross-reference' },
  });
  expect(apiEdges.find((e) => e.from === 7 && e.to === 10)).toBeUndefined();
  // GitHub says #11 closes issue #3, which #4 said it fixed: a link through the issue.
  expect(apiEdges.find((e) => e.from === 11 && e.to === 4)).toMatchObject({ kind: 'follow-up', confidence: 0.6 });
  expect(viaApi.summary.edgesByKind['follow-up']).toBe(viaClone.summary.edgesByKind['follow-up'] + 2);
  expect(viaApi.summary.edgesByKind.mentions).toBe(viaClone.summary.edgesByKind.mentions + 1);
  expect(viaApi.summary.references.issue).toBe(viaClone.summary.references.issue);
  // With --clone the patches are the clone's, byte for byte.
  expect(viaApi.chains[0].prs[0].patch).toBe(viaClone.chains[0].prs[0].patch);

  // One repository request, one listing page, one GraphQL query for all details; nothing per PR.
  expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
    'GET /repos/acme/widgets',
    'GET /repos/acme/widgets/pulls',
    'POST /graphql',
  ]);
  expect(viaApi.summary.requests).toBe(3);
  expect(await readChains(join(dataDir, 'chains.jsonl'))).toHaveLength(viaApi.chains.length);
});

test('without --clone, patches come from the compare API, once each, and the chains say where to clone', async () => {
  const dataDir = await mkdtemp(join(root, 'run-'));
  const result = await mine(dataDir);
  const members = new Set(result.chains.flatMap((c) => c.prs.map((pr) => pr.number)));
  expect(fake.count(/\/compare\//)).toBe(members.size);
  const first = result.chains[0].prs[0];
  expect(first.patch).toMatch(/^diff --git a\/tests\/test_cache.py b\/tests\/test_cache.py\n/m);
  expect(first.testPatch).toContain('tests/test_cache.py');
  expect(result.chains[0].repo.path).toBe(join(dataDir, 'repos', 'acme', 'widgets'));
  expect(warnings.join('\n')).toMatch(/clone acme\/widgets there before `chainsmith start`/);

  fake.requests.length = 0;
  await mine(dataDir);
  expect(fake.count()).toBe(0);
});

test('without a token: a warning, REST per PR, a clear stop at the 60-an-hour limit, and a resume that skips what was fetched', async () => {
  const dataDir = await mkdtemp(join(root, 'run-'));
  const failure = mine(dataDir, { clone }, {});
  await expect(failure).rejects.toBeInstanceOf(RateLimitError);
  await expect(failure).rejects.toThrow(
    /rate limit ran out .*\(it resets at .*\).*cached in .*running the same command again continues.*set GITHUB_TOKEN/,
  );
  expect(warnings[0]).toMatch(/no GitHub token \(set GITHUB_TOKEN\).*60 requests an hour/);
  expect(fake.count(/^\/graphql$/)).toBe(0);
  // What the cache holds is every PR whose three requests all went through before the limit hit.
  const detailsDir = join(
    dataDir,
    'cache',
    'github',
    new URL(baseUrl).host.replace(':', '_'),
    'acme',
    'widgets',
    'details',
  );
  const cached = (await readdir(detailsDir)).map((file) => Number(file.replace('.json', '')));
  expect(cached.length).toBeGreaterThan(5);
  const fetched = new Set(cached.map((n) => `/repos/acme/widgets/pulls/${n}/files`));
  expect(existsSync(join(dataDir, 'chains.jsonl'))).toBe(false);

  // An hour later the same command picks up where it stopped.
  fake.resetRateLimits();
  fake.requests.length = 0;
  const result = await mine(dataDir, { clone }, {});
  const again = fake.requests.filter((r) => /\/pulls\/\d+\/files$/.test(r.path)).map((r) => r.path);
  expect(again.filter((path) => fetched.has(path))).toEqual([]);
  expect(again.length + fetched.size).toBe(result.records.length);
  expect(fake.count(/\/pulls$/)).toBe(0);

  // With a token, the details REST could not give (comments, reviews) are asked for once, in one query.
  fake.requests.length = 0;
  const withToken = await mine(dataDir, { clone });
  expect(fake.requests.map((r) => r.path)).toEqual(['/graphql']);
  expect(withToken.summary.edgesByKind['follow-up']).toBe(result.summary.edgesByKind['follow-up'] + 2);
});
