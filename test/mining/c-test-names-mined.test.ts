// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalPullRequests } from '../../src/mining/landings/local-git';
import { ChainRepo } from '../support/chain-repo';

/**
 * languages/c: a C project whose test programs sit beside its code (a root test_parse.c, as older
 * autotools projects keep them) changes tests when a PR changes one: it once counted as code, and
 * gold validation left every such PR as changing no test file without building anything.
 */
test('a PR that changes a C test program beside the code is mined as changing tests', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-mine-c-tests-'));
  const parse = (limit: number) => `int parse_limit(void) { return ${limit}; }\n`;
  const check = (limit: number) =>
    `int parse_limit(void);\nint main(void) { return parse_limit() == ${limit} ? 0 : 1; }\n`;
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    Makefile: 'test: test_parse\n\t./test_parse\ntest_parse: parse.c test_parse.c\n',
    'parse.c': parse(1),
    'test_parse.c': check(1),
  });
  await repo.pr(1, 'Parse deeper', { 'parse.c': parse(2), 'test_parse.c': check(2) });
  await repo.pr(2, 'Parse deeper still', { 'parse.c': parse(3) });
  const { prs } = await readLocalPullRequests(repo.path);
  expect(Object.fromEntries(prs.map((pr) => [pr.number, pr.changesTests]))).toEqual({ 1: true, 2: false });
  expect(prs.find((pr) => pr.number === 1)?.files.map((f) => [f.path, f.kind])).toEqual([
    ['parse.c', 'code'],
    ['test_parse.c', 'test'],
  ]);
});
