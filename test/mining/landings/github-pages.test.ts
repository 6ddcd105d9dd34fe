// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGitHubClient } from '../../../src/mining/landings/github/client';
import { mineGitHub } from '../../../src/mining/landings/github/mine-github';
import { FakeGitHub } from '../../support/fake-github';
import { syntheticFakeRepo } from '../github-fixtures';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chainsmith-github-pages-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

test('connections past their first page are read to the end, every PR of every batch in the same queries', async () => {
  const repo = syntheticFakeRepo(30);
  // Twenty merged PRs in batches of five: these three come in different batches.
  const merged = repo.pulls.filter((p) => p.mergedAt);
  const [wide, talked, reviewed] = [merged[1], merged[7], merged[13]];
  wide.files = [...Array(250).keys()].map((i) => ({
    path: `vendor/file${i}.c`,
    additions: 1,
    deletions: 0,
    status: 'added' as const,
  }));
  talked.comments = [...Array(120).keys()].map((i) => ({ user: `user${i % 7}`, body: `comment ${i}` }));
  reviewed.reviews = [...Array(45).keys()].map((i) => ({
    user: `reviewer${i % 3}`,
    body: `review ${i}`,
    comments: [{ user: 'reviewer0', body: `inline ${i}` }],
  }));
  // A long review on the first page and one on the last: their inline comments past the first ten are read through the review's id.
  for (const i of [0, 44])
    reviewed.reviews[i].comments = [...Array(25).keys()].map((j) => ({
      user: 'reviewer1',
      body: `inline ${i}.${j}${j === 22 ? ' (this regressed in #3)' : ''}`,
    }));
  const fake = new FakeGitHub([repo]);
  const baseUrl = await fake.start();
  try {
    const client = createGitHubClient({ baseUrl, token: 'token', secondMs: 1 });
    const mined = await mineGitHub({
      repo: 'acme/big',
      client,
      baseUrl,
      hasToken: true,
      cacheDir: join(root, 'cache'),
      batchSize: 5,
    });
    const record = (n: number) => mined.prs.find((pr) => pr.number === n)!;
    expect(record(wide.number).files.map((f) => f.path)).toEqual(wide.files.map((f) => f.path));
    expect(
      record(talked.number)
        .comments!.filter((c) => c.kind === 'comment')
        .map((c) => c.body),
    ).toEqual(talked.comments.map((c) => c.body));
    expect(
      record(reviewed.number)
        .comments!.filter((c) => c.kind === 'review')
        .map((c) => c.body),
    ).toEqual(reviewed.reviews.map((r) => r.body));
    expect(
      record(reviewed.number)
        .comments!.filter((c) => c.kind === 'review-comment')
        .map((c) => c.body),
    ).toEqual(reviewed.reviews.flatMap((r) => r.comments!.map((c) => c.body)));
    expect(record(reviewed.number).comments!.filter((c) => c.body.includes('regressed in #3'))).toHaveLength(2);
    // 250 files, 120 comments and 45 reviews are each three pages (100, 50 and 20 a page): a query
    // for each batch's first pages, then one for all second pages (and the first long review's
    // other inline comments) and one for all third pages (which bring the last long review), then
    // one for that review's other inline comments.
    const queries = fake.requests.filter((r) => r.graphql).map((r) => r.graphql!.split(/[ (]/)[1]);
    expect(queries).toEqual([
      'PullDetails',
      'PullDetails',
      'PullDetails',
      'PullDetails',
      'MorePages',
      'MorePages',
      'MorePages',
    ]);
  } finally {
    await fake.stop();
  }
});
