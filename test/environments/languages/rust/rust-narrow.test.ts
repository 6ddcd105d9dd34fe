import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * A crate whose doc test fails at every commit, and an integration test that reads a fixture under
 * tests/. A PR that changes only the fixture (as a trybuild .stderr file is changed) runs the unit and
 * integration tests, not the doc tests: the failing doc test is in none of the lists, and the
 * fixture's test is FAIL_TO_PASS.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR whose test files under tests/ name no target runs every test target, not the doc tests',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-narrow-'));
    const lib = (answer: number) =>
      `/// \`\`\`\n/// assert_eq!(narrow::answer(), 0);\n/// \`\`\`\npub fn answer() -> u32 { ${answer} }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn positive() { assert!(super::answer() > 0); }\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "narrow"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n',
      'src/lib.rs': lib(41),
      'tests/fixture.rs':
        '#[test]\nfn matches_fixture() { assert_eq!(include_str!("data/answer.txt").trim(), narrow::answer().to_string()); }\n',
      'tests/data/answer.txt': '41\n',
    });
    const chain = repo.chain('gen/rust-narrow', [
      await repo.pr(1, 'The answer is 42', { 'src/lib.rs': lib(42), 'tests/data/answer.txt': '42\n' }),
    ]);
    // The fixture changes with the code: before the change the test compares 42 with 41.
    await repo.checkout(chain.prs[0].mergeSha);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', signal: 'per-test', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['fixture::matches_fixture']);
    expect(gold.passToPass).toEqual(['narrow::tests::positive']);
  },
  20 * 60_000,
);
