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
 * cargo.ts, testsText: a PR whose new unit test, in src/lib.rs's test module, is gated on a crate feature
 * (textwrap #162's hyphenation test). The feature is turned on for the run, so the test fails before the
 * change and passes after it, where it was compiled out both times and nothing verified the stage. The
 * code's own `cfg(feature)` above the test module (one that does not build) stays off.
 */
testIf(missingTool('cargo'))(
  'cargo: a unit test gated on a crate feature in a code file runs with that feature',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-feature-unit-'));
    const lib = (body: string, tests: string) =>
      [
        '#[cfg(feature = "broken")]',
        'compile_error!("not for the tests");',
        '',
        '#[cfg(feature = "twice")]',
        'pub fn double(n: u32) -> u32 {',
        `    ${body}`,
        '}',
        '',
        '#[cfg(test)]',
        'mod tests {',
        '    #[test]',
        '    fn builds() {}',
        tests,
        '}',
        '',
      ].join('\n');
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml':
        '[package]\nname = "feature_unit"\nversion = "0.1.0"\nedition = "2018"\n\n[features]\nbroken = []\ntwice = []\n',
      'src/lib.rs': lib('n', ''),
    });
    const gated = [
      '',
      '    #[test]',
      '    #[cfg(feature = "twice")]',
      '    fn doubles() {',
      '        assert_eq!(super::double(21), 42);',
      '    }',
    ].join('\n');
    const chain = repo.chain('gen/rust-feature-unit', [
      await repo.pr(1, 'double() doubles', { 'src/lib.rs': lib('n * 2', gated) }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['feature_unit::tests::doubles']);
    expect(gold.passToPass).toEqual(['feature_unit::tests::builds']);
  },
  20 * 60_000,
);
