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
 * detect.ts, NOTHING_VENDORED: a crate that depends on nothing, whose PR adds its first dependency.
 * The base's `cargo vendor` prints no source replacement (there is nothing to vendor); the merge's
 * crates join the vendored directory all the same (merge-deps.ts), and the image's cargo finds them
 * there after the change, where it once looked in a crates.io index the image does not have.
 */
testIf(missingTool('cargo'))(
  "cargo: a PR that adds a crate's first dependency is tested with it after the change",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-first-dep-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "first_dep"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': 'pub fn show(n: u32) -> String {\n    let _ = n;\n    String::new()\n}\n',
    });
    const chain = repo.chain('gen/rust-first-dep', [
      await repo.pr(1, 'show() writes the number', {
        'Cargo.toml':
          '[package]\nname = "first_dep"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\nitoa = "1"\n',
        'src/lib.rs': 'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n',
        'tests/show.rs': '#[test]\nfn shows() {\n    assert_eq!(first_dep::show(42), "42");\n}\n',
      }),
    ]);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['show::shows']);
  },
  20 * 60_000,
);
