// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { graphqlCost, graphqlRequests } from '../../support/fake-github-cost';
import { FakeGitHub } from '../../support/fake-github';
import { syntheticFakeRepo } from '../github-fixtures';

test("GitHub's documented example: 100 repositories of 50 issues of 60 labels is 5,101 requests, 51 points", () => {
  const query = `query {
    viewer {
      login
      repositories(first: 100) {
        edges { node { id issues(first: 50) { edges { node { id labels(first: 60) { edges { node { id name } } } } } } } }
      }
    }
  }`;
  expect(graphqlRequests(query)).toBe(5101);
  expect(graphqlCost(query)).toBe(51);
});

test('page sizes come from variables and fragments count where they are spread; a query costs at least one point', () => {
  const query = `query Q($n: Int!) { repository(owner: "a", name: "b") { a: pullRequest(number: 1) { ...F } b: pullRequest(number: 2) { ...F } } }
    fragment F on PullRequest { files(first: $n) { nodes { path } } reviews(first: 20) { nodes { comments(first: 10) { nodes { body } } } } }`;
  // Per PR: files 1, reviews 1, their comments 20.
  expect(graphqlRequests(query, { n: 100 })).toBe(44);
  expect(graphqlCost(query, { n: 100 })).toBe(1);
});

test('the fake charges a query its points and reports them as rateLimit { cost }', async () => {
  const fake = new FakeGitHub([syntheticFakeRepo(60)]);
  const baseUrl = await fake.start();
  try {
    const aliases = [...Array(40).keys()].map(
      (i) =>
        `p${i}: pullRequest(number: ${i + 2}) { reviews(first: 20) { nodes { comments(first: 10) { nodes { body } } } } }`,
    );
    const query = `{ repository(owner: "acme", name: "big") { ${aliases.join(' ')} } rateLimit { cost remaining } }`;
    const response = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: 'bearer t' },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data: { rateLimit: { cost: number; remaining: number } } };
    // 40 x (1 + 20) = 840 requests: 8 points.
    expect(body.data.rateLimit).toEqual({ cost: 8, remaining: 4992 });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4992');
    expect(fake.points()).toBe(8);
  } finally {
    await fake.stop();
  }
});
