// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { createGitHubClient } from '../../../src/mining/landings/github/client';
import { GITHUB_ERROR_RETRIES, GITHUB_RATE_LIMIT_RETRIES, GITHUB_REQUEST_TRIES } from '../../../src/retry-budget';
import { FakeGitHub, rateLimited, secondaryLimit, serverError, type FaultResponse } from '../../support/fake-github';
import { syntheticFakeRepo } from '../github-fixtures';

/**
 * docs/retries.md's "tries of one GitHub request", counted on the wire: the two Octokit plugins
 * (throttling for rate limits, retry for 5xx) each keep a count, and a request that meets both kinds
 * of failure is tried by both.
 */
const repo = syntheticFakeRepo(3);
let fake: FakeGitHub;
let baseUrl: string;

beforeAll(async () => {
  fake = new FakeGitHub([repo]);
  baseUrl = await fake.start();
});
afterAll(() => fake.stop());

/** Tries of one listing request that every answer fails, the answers taken in turn from `answers`. */
async function triesOf(answers: ((now: number) => FaultResponse)[]): Promise<number> {
  fake.requests.length = 0;
  let n = 0;
  const isList = (r: { path: string }) => r.path.endsWith('/pulls');
  // One fault a kind, each matching its turn: the answers alternate for as long as the client asks.
  answers.forEach((answer, i) => fake.fail((r) => isList(r) && n % answers.length === i && ++n > 0, answer, 1000));
  const client = createGitHubClient({ baseUrl, secondMs: 5 });
  const { owner, name } = repo;
  await expect(client.rest.pulls.list({ owner, repo: name, state: 'all' })).rejects.toThrow();
  fake.clearFaults();
  return fake.requests.filter(isList).length;
}

test('a request that only meets 5xx is tried 1 + GITHUB_ERROR_RETRIES times', async () => {
  expect(await triesOf([() => serverError(502)])).toBe(1 + GITHUB_ERROR_RETRIES);
});

test('a request that only meets rate limits is tried 1 + GITHUB_RATE_LIMIT_RETRIES times', async () => {
  expect(await triesOf([rateLimited(0)])).toBe(1 + GITHUB_RATE_LIMIT_RETRIES);
  expect(await triesOf([() => secondaryLimit(0)])).toBe(1 + GITHUB_RATE_LIMIT_RETRIES);
});

test('a request that meets both, in turn, is tried at most GITHUB_REQUEST_TRIES times', async () => {
  const tries = [
    await triesOf([rateLimited(0), () => serverError(502)]),
    await triesOf([() => serverError(502), rateLimited(0)]),
  ];
  expect(Math.max(...tries)).toBe(GITHUB_REQUEST_TRIES);
});
