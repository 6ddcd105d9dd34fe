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
 * detect.ts, LINTS_CAPPED: a 2015-edition crate that denies warnings in its test builds and names a
 * trait object without `dyn`, as every crate did before Rust 1.27. The rustc of its day built it
 * warning-free; the image's rustc warns on the bare trait object, which the crate's own deny would
 * make an error in every build of its tests. Capped at warnings, its tests build and the stage verifies.
 */
testIf(missingTool('cargo'))(
  "cargo: a crate's own deny(warnings) does not fail its build on lints newer than the crate",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-deny-'));
    const deps = goldDeps(docker, dir, testEnvironments(docker));
    const lib = (n: number) =>
      `#![cfg_attr(test, deny(warnings))]\n\npub fn answer() -> u32 {\n    let f: Box<Fn() -> u32> = Box::new(|| ${n});\n    f()\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'denies'), {
      'Cargo.toml': '[package]\nname = "denies"\nversion = "0.1.0"\n',
      'src/lib.rs': lib(41),
    });
    const chain = repo.chain('gen/denies', [
      await repo.pr(1, 'answer() is 42', {
        'src/lib.rs': lib(42),
        'tests/answer.rs': '#[test]\nfn answers() {\n    assert_eq!(denies::answer(), 42);\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', failToPass: ['answer::answers'] });
  },
  20 * 60_000,
);
