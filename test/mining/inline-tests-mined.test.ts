// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLocalPullRequests } from '../../src/mining/landings/local-git';
import { ChainRepo } from '../support/chain-repo';

/**
 * local-git.ts: a PR that changes only the unit tests inside its code (a Rust #[cfg(test)] module)
 * changes tests, as gold validation counts them: `--require-tests` keeps it, where it once dropped it.
 */
test('a PR whose tests are the #[cfg(test)] items of its code file is mined as changing tests', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-mine-inline-'));
  const lib = (answer: number, test: string) =>
    `pub fn answer() -> u32 {\n    ${answer}\n}\n\n#[cfg(test)]\nmod tests {\n${test}}\n`;
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'Cargo.toml': '[package]\nname = "mined"\nversion = "0.1.0"\n',
    'src/lib.rs': lib(41, ''),
  });
  await repo.pr(1, 'The answer is 42', {
    'src/lib.rs': lib(42, '    #[test]\n    fn answers() {\n        assert_eq!(super::answer(), 42);\n    }\n'),
  });
  await repo.pr(2, 'The answer is 43', {
    'src/lib.rs': lib(43, '    #[test]\n    fn answers() {\n        assert_eq!(super::answer(), 42);\n    }\n'),
  });
  const { prs } = await readLocalPullRequests(repo.path);
  expect(Object.fromEntries(prs.map((pr) => [pr.number, pr.changesTests]))).toEqual({ 1: true, 2: false });
});
