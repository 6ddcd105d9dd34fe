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
 * cargo.ts, gatedFeatures: an optional dependency is a feature of its own name (cargo's implicit one).
 * A test file gated on it as a whole (`#![cfg(feature = "itoa")]`, the dependency declared only as
 * optional, no [features] entry) runs with it before and after the PR, where it was compiled out on
 * both sides and nothing could verify the stage.
 */
testIf(missingTool('cargo'))(
  "cargo: tests gated on an optional dependency's implicit feature run with it",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-optional-'));
    const show = (body: string) => `#[cfg(feature = "itoa")]\npub fn show(n: u32) -> String {\n    ${body}\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml':
        '[package]\nname = "optional_dep"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies.itoa]\nversion = "1"\noptional = true\n',
      'src/lib.rs': show('let _ = n;\n    String::new()'),
    });
    const chain = repo.chain('gen/rust-optional-dep', [
      await repo.pr(1, 'show() writes the number', {
        'src/lib.rs': show('itoa::Buffer::new().format(n).to_string()'),
        'tests/show.rs':
          '#![cfg(feature = "itoa")]\n\n#[test]\nfn shows() {\n    assert_eq!(optional_dep::show(42), "42");\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['show::shows']);
  },
  20 * 60_000,
);
