// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GitHubPayloadError,
  GitHubUnavailableError,
  MiningError,
  RateLimitError,
  RepositoryNotFoundError,
} from '../../../src/mining/errors';
import { InputError } from '../../../src/errors';
import { createGitHubClient } from '../../../src/mining/landings/github/client';
import { mineGitHub, type GitHubMineResult } from '../../../src/mining/landings/github/mine-github';
import { FakeGitHub, rateLimited, secondaryLimit, serverError, type SeenRequest } from '../../support/fake-github';
import { syntheticFakeRepo } from '../github-fixtures';
import { freePort } from '../../support/ports';

// 250 PRs: three listing pages of 100; 167 merged, so four GraphQL batches of 50.
const repo = syntheticFakeRepo(250);
const MERGED = repo.pulls.filter((p) => p.mergedAt).length;

let fake: FakeGitHub;
let baseUrl: string;
let root: string;
const warnings: string[] = [];

beforeAll(async () => {
  fake = new FakeGitHub([repo]);
  baseUrl = await fake.start();
  root = await mkdtemp(join(tmpdir(), 'chainsmith-github-faults-'));
});

afterAll(async () => {
  await fake.stop();
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  fake.requests.length = 0;
  warnings.length = 0;
});

/** GitHub's second is 5 ms here: waits for resets and back-offs happen, just quickly. */
function mine(
  cacheDir: string,
  opts: { repo?: string; listTtlMs?: number; refresh?: boolean; maxWaitSeconds?: number } = {},
): Promise<GitHubMineResult> {
  const client = createGitHubClient({
    baseUrl,
    token: 'token',
    secondMs: 5,
    retries: 2,
    maxWaitSeconds: opts.maxWaitSeconds,
    warn: (m) => warnings.push(m),
  });
  return mineGitHub({
    repo: opts.repo ?? 'acme/big',
    client,
    baseUrl,
    hasToken: true,
    cacheDir,
    listTtlMs: opts.listTtlMs,
    refresh: opts.refresh,
    warn: (m) => warnings.push(m),
  });
}

const isPage = (page: number) => (r: Omit<SeenRequest, 'status'>) =>
  r.path.endsWith('/pulls') && r.query.get('page') === String(page);
const isGraphql = (r: Omit<SeenRequest, 'status'>) => r.path === '/graphql';
const pagesAsked = () =>
  fake.requests.filter((r) => r.path.endsWith('/pulls')).map((r) => `${r.query.get('page')}:${r.status}`);

test('listing pages follow the Link header; details come fifty PRs a query', async () => {
  const result = await mine(await mkdtemp(join(root, 'c-')));
  expect(result.prs).toHaveLength(MERGED);
  expect(result.pullNumbers.size).toBe(250);
  expect(pagesAsked()).toEqual(['1:200', '2:200', '3:200']);
  expect(fake.count(/^\/graphql$/)).toBe(Math.ceil(MERGED / 50));
  expect(fake.requests.every((r) => r.query.get('per_page') === null || r.query.get('per_page') === '100')).toBe(true);
});

test('403 with a rate-limit reset, 429 with Retry-After and 502s are waited out; the mine completes', async () => {
  fake.fail(isPage(2), rateLimited(1));
  fake.fail(isGraphql, secondaryLimit(1));
  fake.fail(isPage(3), serverError(502), 2);
  const result = await mine(await mkdtemp(join(root, 'c-')));
  expect(result.prs).toHaveLength(MERGED);
  expect(pagesAsked()).toEqual(['1:200', '2:403', '2:200', '3:502', '3:502', '3:200']);
  expect(fake.requests.filter(isGraphql).map((r) => r.status)).toEqual([429, 200, 200, 200, 200]);
  expect(warnings).toEqual([
    expect.stringMatching(/^GitHub rate limit on GET \/repos\/acme\/big\/pulls: waiting \d+s before retrying$/),
    expect.stringMatching(/^GitHub secondary rate limit on POST \/graphql: waiting 1s before retrying$/),
  ]);
});

test('a reset too far away stops the mine with a clear message; the rerun asks nothing the cache holds', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  fake.fail(isPage(3), rateLimited(3600));
  const failure = mine(cacheDir);
  await expect(failure).rejects.toBeInstanceOf(RateLimitError);
  await expect(failure).rejects.toThrow(
    /^GitHub's rate limit ran out while fetching GET \/repos\/acme\/big\/pulls page 3 \(it resets at \d{4}-.*Z, in 60 minutes\); what was fetched is cached in .*acme\/big, so running the same command again continues from there after the reset$/,
  );

  fake.requests.length = 0;
  const result = await mine(cacheDir);
  expect(result.prs).toHaveLength(MERGED);
  expect(fake.requests[0].path).toBe('/repos/acme/big/pulls');
  expect(pagesAsked()).toEqual(['3:200']);
});

test('a batch that fails is narrowed down at once, and the halves it did not need to try ride along in later batches', async () => {
  let queries = 0;
  // From the second query on, three fail: as when GitHub times out a heavy query.
  fake.fail((r) => isGraphql(r) && ++queries >= 2, serverError(502), 3);
  const result = await mine(await mkdtemp(join(root, 'c-')));
  expect(result.prs).toHaveLength(MERGED);
  const sizes = fake.requests
    .filter(isGraphql)
    .map((r) => `${(r.graphql?.match(/pullRequest\(number:/g) ?? []).length}:${r.status}`);
  // 50 fails, its first 25 fail, their first 13 fail; 7 and 6 pass. The untried 25 and 12 fill the next batches.
  expect(sizes).toEqual(['50:200', '50:502', '25:502', '13:502', '7:200', '6:200', '50:200', '50:200', '4:200']);
});

test('a single PR whose query keeps failing is retried, then the mine stops with a clear error', async () => {
  fake.fail(isGraphql, serverError(502), 1000);
  await expect(mine(await mkdtemp(join(root, 'c-')))).rejects.toThrow(GitHubUnavailableError);
  const sizes = fake.requests.filter(isGraphql).map((r) => (r.graphql?.match(/pullRequest\(number:/g) ?? []).length);
  // 50, 25, 13, 7, 4, 2 at once, then the single PR with its two retries (retries: 2 here).
  expect(sizes).toEqual([50, 25, 13, 7, 4, 2, 1, 1, 1]);
  fake.clearFaults();
});

test('a GitHub that nothing answers at is unavailable (retry later), and the error says why it could not be reached', async () => {
  // A closed port, and one fetch refuses to use at all (no response either way, though octokit says 500).
  for (const [nowhere, why] of [
    [`http://127.0.0.1:${await freePort()}`, 'ECONNREFUSED'],
    ['http://127.0.0.1:1', 'bad port'],
  ]) {
    const client = createGitHubClient({
      baseUrl: nowhere,
      token: 'token',
      secondMs: 5,
      retries: 2,
      warn: (m) => warnings.push(m),
    });
    const failure = mineGitHub({
      repo: 'acme/big',
      client,
      baseUrl: nowhere,
      hasToken: true,
      cacheDir: await mkdtemp(join(root, 'c-')),
      warn: (m) => warnings.push(m),
    });
    await expect(failure).rejects.toBeInstanceOf(GitHubUnavailableError);
    await expect(failure).rejects.toThrow(`cannot reach ${nowhere} (${why}) after retrying`);
  }
});

test('interrupted while fetching details, the rerun fetches only the PRs not yet cached', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  let batches = 0;
  // From the third query on, GitHub is down: splitting the batch does not help either.
  fake.fail((r) => isGraphql(r) && ++batches >= 3, serverError(503), 1000);
  const failure = mine(cacheDir);
  await expect(failure).rejects.toBeInstanceOf(GitHubUnavailableError);
  await expect(failure).rejects.toThrow(
    /^GitHub kept answering 503 for GraphQL details of PRs #\d+\.\.#\d+ after retrying; try again in a few minutes: what was fetched is cached/,
  );
  const asked = (requests: SeenRequest[]) =>
    requests.filter(isGraphql).flatMap((r) => [...(r.graphql ?? '').matchAll(/pr(\d+): /g)].map((m) => Number(m[1])));
  const done = new Set(asked(fake.requests.filter((r) => r.status === 200)));
  expect(done.size).toBe(100);

  fake.requests.length = 0;
  fake.clearFaults(); // GitHub is back
  const result = await mine(cacheDir);
  expect(result.prs).toHaveLength(MERGED);
  // Neither the repository nor the listing is asked again, and no finished PR is.
  expect(fake.requests.every(isGraphql)).toBe(true);
  const again = asked(fake.requests);
  expect(again).toHaveLength(MERGED - 100);
  expect(again.filter((n) => done.has(n))).toEqual([]);
});

test('a rerun after the listing went stale revalidates it with ETags (304s) and refetches only changed PRs', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  await mine(cacheDir);
  const changed = repo.pulls.find((p) => p.number === 20)!;
  const before = { title: changed.title, updatedAt: changed.updatedAt };
  changed.title = 'Change 20, renamed';
  changed.updatedAt = new Date(Date.parse(changed.updatedAt) + 1000).toISOString();
  try {
    fake.requests.length = 0;
    const result = await mine(cacheDir, { listTtlMs: 0 });
    expect(pagesAsked()).toEqual(['1:200', '2:304', '3:304']);
    const queries = fake.requests.filter(isGraphql);
    expect(queries).toHaveLength(1);
    expect(queries[0].graphql).toMatch(/pr20: pullRequest\(number: 20\)/);
    expect(queries[0].graphql?.match(/pullRequest\(number:/g)).toHaveLength(1);
    expect(result.prs.find((pr) => pr.number === 20)?.title).toBe('Change 20, renamed');
  } finally {
    Object.assign(changed, before);
  }
});

test('an unknown repository is a clear error, before anything is written', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  const failure = mine(cacheDir, { repo: 'acme/nope' });
  await expect(failure).rejects.toBeInstanceOf(RepositoryNotFoundError);
  await expect(failure).rejects.toBeInstanceOf(InputError);
  await expect(failure).rejects.toThrow(
    `GitHub has no repository acme/nope at ${baseUrl}, or the token cannot see it (404 on GET /repos/acme/nope)`,
  );
  await expect(mine(cacheDir, { repo: 'not-a-name' })).rejects.toThrow('--github wants owner/name, got "not-a-name"');
});

test('a malformed payload names the request and the field; pages already read are kept', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  fake.fail(isPage(2), {
    malform: (items) =>
      items.map((item: { number: number }, i: number) => (i === 7 ? { ...item, number: String(item.number) } : item)),
  });
  const failure = mine(cacheDir);
  await expect(failure).rejects.toBeInstanceOf(GitHubPayloadError);
  await expect(failure).rejects.toBeInstanceOf(MiningError);
  await expect(failure).rejects.toThrow(
    /^GitHub sent a payload chainsmith cannot read \(GET \/repos\/acme\/big\/pulls page 2\): 7\.number: Invalid input: expected number, received string$/,
  );

  fake.requests.length = 0;
  await mine(cacheDir);
  expect(pagesAsked()).toEqual(['2:200', '3:200']);

  fake.fail(isGraphql, {
    malform: (body) => ({
      data: { repository: { ...body.data.repository, pr3: { ...body.data.repository.pr3, files: { nodes: 'none' } } } },
    }),
  });
  const other = await mkdtemp(join(root, 'c-'));
  await expect(mine(other)).rejects.toThrow(
    /^GitHub sent a payload chainsmith cannot read \(GraphQL details of PR #3\): files\.pageInfo: /,
  );
});

test('a corrupt cache file is moved aside with a warning and fetched again; the rest of the cache still counts', async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  await mine(cacheDir);
  const base = join(cacheDir, new URL(baseUrl).host.replace(':', '_'), 'acme', 'big');
  await writeFile(join(base, 'pulls', 'page-2.json'), '{"version": 1, "items": [tr');
  const detail = join(base, 'details', '5.json');
  await writeFile(detail, (await readFile(detail, 'utf8')).replace(/"number":5/, '"number":"five"'));

  fake.requests.length = 0;
  const result = await mine(cacheDir);
  expect(result.prs).toHaveLength(MERGED);
  expect(pagesAsked()).toEqual(['2:200']);
  expect(fake.requests.filter(isGraphql).map((r) => r.graphql?.match(/pullRequest\(number: \d+\)/g))).toEqual([
    ['pullRequest(number: 5)'],
  ]);
  expect(warnings).toEqual([
    expect.stringMatching(
      /^cache file .*page-2\.json is corrupt \(.*JSON.*\); moved it to .*page-2\.json\.corrupt and fetching that part again$/,
    ),
    expect.stringMatching(
      /^cache file .*5\.json is corrupt \(detail\.number: Invalid input: expected number, received string\); moved it to/,
    ),
  ]);
  expect(existsSync(join(base, 'pulls', 'page-2.json.corrupt'))).toBe(true);
});

test("a detail cached by an older version of chainsmith is fetched again, quietly, and cached in today's shape", async () => {
  const cacheDir = await mkdtemp(join(root, 'c-'));
  await mine(cacheDir);
  const detail = join(cacheDir, new URL(baseUrl).host.replace(':', '_'), 'acme', 'big', 'details', '5.json');
  const today = JSON.parse(await readFile(detail, 'utf8'));
  await writeFile(detail, JSON.stringify({ ...today, version: 1 }));

  fake.requests.length = 0;
  warnings.length = 0;
  const result = await mine(cacheDir);
  expect(result.prs).toHaveLength(MERGED);
  expect(fake.requests.filter(isGraphql).map((r) => r.graphql?.match(/pullRequest\(number: \d+\)/g))).toEqual([
    ['pullRequest(number: 5)'],
  ]);
  expect(warnings).toEqual([]);
  expect(JSON.parse(await readFile(detail, 'utf8')).version).toBe(today.version);
});

test('rebase merges are based where the replayed commits start; a bot account and other base branches are told apart', async () => {
  // #900: two commits replayed onto main; the merge SHA is the second, carrying its message.
  const sha = (s: string) => s.repeat(40).slice(0, 40);
  const [base, first, second] = [sha('a1'), sha('b2'), sha('c3')];
  repo.commits.set(base, { sha: base, message: 'Earlier work', parents: [] });
  repo.commits.set(first, { sha: first, message: 'Part one', parents: [base] });
  repo.commits.set(second, { sha: second, message: 'Part two', parents: [first] });
  // The PR's own commits, before GitHub replayed them.
  const own = [
    { sha: sha('e5'), message: 'Part one', parents: [base] },
    { sha: sha('f6'), message: 'Part two', parents: [sha('e5')] },
  ];
  for (const commit of own) repo.commits.set(commit.sha, commit);
  const pull = (number: number, extra: object) => ({
    ...repo.pulls[1],
    number,
    createdAt: '2030-01-01T00:00:00Z',
    updatedAt: '2030-01-01T00:00:00Z',
    mergedAt: '2030-01-01T00:00:00Z',
    ...extra,
  });
  const extra = [
    pull(900, { mergeSha: second, headSha: sha('f6'), commits: own }),
    pull(901, { user: 'renovate[bot]' }),
    pull(902, { baseRef: 'release-1.x' }),
  ];
  repo.pulls.push(...extra);
  try {
    const result = await mine(await mkdtemp(join(root, 'c-')));
    const rebased = result.prs.find((pr) => pr.number === 900)!;
    expect(rebased).toMatchObject({ mergeMethod: 'rebase', baseSha: base, mergeSha: second });
    expect(rebased.messages).toEqual(['Part one', 'Part two']);
    expect(result.prs.find((pr) => pr.number === 901)?.authorIsBot).toBe(true);
    expect(result.prs.find((pr) => pr.number === 902)).toBeUndefined();
    expect(result.dropped['other-base']).toBe(1);
  } finally {
    repo.pulls.splice(repo.pulls.length - extra.length, extra.length);
  }
});
