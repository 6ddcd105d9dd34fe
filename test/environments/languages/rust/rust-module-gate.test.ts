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
 * module-gate.ts: a PR whose new unit test sits in a module that its parent declares under a crate
 * feature (`#[cfg(feature = "extra")] pub mod extra;` in src/lib.rs, as uuid #98's serde tests in
 * src/serde.rs). The file itself names no feature; the feature is turned on for the run all the same,
 * so the test fails before the change and passes after it, where it was compiled out both times.
 */
testIf(missingTool('cargo'))(
  'cargo: a unit test in a module its parent declares under a feature runs with that feature',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-module-gate-'));
    const extra = (body: string, tests: string) =>
      `pub fn triple(n: u32) -> u32 {\n    ${body}\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn builds() {}\n${tests}}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "module_gate"\nversion = "0.1.0"\nedition = "2018"\n\n[features]\nextra = []\n',
      'src/lib.rs': '#![no_std]\n\n#[cfg(feature = "extra")]\npub mod extra;\n',
      'src/extra.rs': extra('n', ''),
    });
    const chain = repo.chain('gen/rust-module-gate', [
      await repo.pr(1, 'triple() triples', {
        'src/extra.rs': extra(
          'n * 3',
          '\n    #[test]\n    fn triples() {\n        assert_eq!(super::triple(14), 42);\n    }\n',
        ),
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['module_gate::extra::tests::triples']);
    expect(gold.passToPass).toEqual(['module_gate::extra::tests::builds']);
  },
  20 * 60_000,
);
