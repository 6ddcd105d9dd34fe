import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { inlineTestFiles } from '../../../../src/environments/inline-tests';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * test-items.ts, TEST_ATTRIBUTE: a crate whose unit tests are `#[test]` functions at the top of a code
 * file, with no test module around them (similar's algorithms). A PR that adds one changes its tests,
 * and is verified by it, where the PR counted as changing no test and nothing could verify it.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR that adds a top-level #[test] function in a code file is verified by it',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-top-test-'));
    const lib = (body: string, extra: string) =>
      `pub fn common(a: &[u8], b: &[u8]) -> usize {\n    ${body}\n}\n\n#[test]\nfn test_empty() {\n    assert_eq!(common(&[], &[]), 0);\n}\n${extra}`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "top_test"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib('a.iter().zip(b).take_while(|(x, y)| x == y).count().saturating_sub(1)', ''),
    });
    const added = '\n#[test]\nfn test_same() {\n    assert_eq!(common(&[1, 2], &[1, 2]), 2);\n}\n';
    const chain = repo.chain('gen/rust-top-test', [
      await repo.pr(1, 'common() counts every shared element', {
        'src/lib.rs': lib('a.iter().zip(b).take_while(|(x, y)| x == y).count()', added),
      }),
    ]);
    expect(await inlineTestFiles(chain.repo.path, chain.prs[0])).toEqual(['src/lib.rs']);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['top_test::test_same']);
    expect(gold.passToPass).toEqual(['top_test::test_empty']);
  },
  20 * 60_000,
);
