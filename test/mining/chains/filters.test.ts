// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { dropReason, filterPullRequests, isBot } from '../../../src/mining/chains/filters';
import type { ChangedFile } from '../../../src/schemas';
import { makePr } from '../make-pr';

const file = (path: string, kind: ChangedFile['kind'], lines = 10): ChangedFile => ({
  path,
  kind,
  status: 'modified',
  additions: lines,
  deletions: 0,
  binary: false,
});

test.each([
  ['dependabot[bot]', true],
  ['renovate', true],
  ['pre-commit-ci[bot]', true],
  ['release-bot', true],
  ['Ada Lovelace', false],
  ['abbot', false],
])('%s is a bot: %s', (author, bot) => {
  expect(isBot({ author })).toBe(bot);
});

test("GitHub's word that an account is a bot counts even when the name does not say so", () => {
  expect(isBot({ author: 'helper', authorIsBot: true })).toBe(true);
});

test('PRs without code or tests, and PRs too large to be one stage, are left out unless asked for', () => {
  const docs = makePr(1, { files: [file('README.md', 'other')] });
  const testsOnly = makePr(2, { files: [file('tests/test_a.py', 'test')] });
  const huge = makePr(3, { files: [file('src/a.py', 'code', 1500), file('src/b.py', 'code', 600)] });
  const bot = makePr(4, { author: 'dependabot[bot]', files: [file('src/a.py', 'code')] });
  expect([docs, testsOnly, huge, bot].map((pr) => dropReason(pr))).toEqual(['no-code', undefined, 'oversized', 'bot']);
  expect(dropReason(docs, { keepNoCode: true })).toBeUndefined();
  expect(dropReason(huge, { maxChangedLines: 5000 })).toBeUndefined();
  expect(dropReason(bot, { keepBots: true })).toBeUndefined();
  const { kept, dropped } = filterPullRequests([docs, testsOnly, huge, bot]);
  expect(kept.map((pr) => pr.number)).toEqual([2]);
  expect(dropped).toEqual({ bot: 1, 'no-code': 1, oversized: 1 });
});
