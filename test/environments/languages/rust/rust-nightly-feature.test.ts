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
 * cargo.ts, gatedFeatures: a feature under which the crate's root turns on a nightly `#![feature]`
 * (`#![cfg_attr(feature = "may_dangle", feature(dropck_eyepatch))]`, as smallvec's) is not turned on
 * for the test files that name it, where the stable rustc refused the whole crate (E0554) and none of
 * the PR's tests ran; the features the other tests are gated on still are.
 */
testIf(missingTool('cargo'))(
  "cargo: a feature that turns on a nightly #![feature] stays off, the PR's other gated tests run",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-nightly-feature-'));
    const lib = (answer: number) =>
      `#![cfg_attr(feature = "may_dangle", feature(dropck_eyepatch))]\n\npub fn answer() -> u32 {\n    ${answer}\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml':
        '[package]\nname = "nightly_feature"\nversion = "0.1.0"\nedition = "2018"\n\n[features]\nmay_dangle = []\nwrite = []\n',
      'src/lib.rs': lib(41),
    });
    const chain = repo.chain('gen/rust-nightly-feature', [
      await repo.pr(1, 'The answer is 42', {
        'src/lib.rs': lib(42),
        'tests/answer.rs': [
          '#[cfg(feature = "may_dangle")]',
          '#[test]',
          'fn dangles() {}',
          '',
          '#[cfg(feature = "write")]',
          '#[test]',
          'fn answers() {',
          '    assert_eq!(nightly_feature::answer(), 42);',
          '}',
          '',
        ].join('\n'),
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['answer::answers']);
  },
  20 * 60_000,
);
