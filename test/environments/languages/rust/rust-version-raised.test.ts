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
 * cargo.ts, rustcRefused: a release that raises its crate's `rust-version` past every rustc here (a
 * new MSRV). The base builds; after the change cargo refuses the crate before compiling a test
 * ("rustc 1.85.0 is not supported by the following packages"), which is the toolchain, not the
 * tests: `unsupported`, naming the crate and the rustc it requires, not `tests-not-runnable`.
 */
testIf(missingTool('cargo'))(
  "cargo: a PR that raises the crate's rust-version past the newest rustc here is unsupported",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-version-raised-'));
    const manifest = (rustVersion: string) =>
      `[package]\nname = "raised"\nversion = "0.1.0"\nedition = "2021"\nrust-version = "${rustVersion}"\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': manifest('1.70'),
      'src/lib.rs': 'pub fn double(n: u32) -> u32 {\n    n\n}\n',
    });
    const chain = repo.chain('gen/rust-version-raised', [
      await repo.pr(1, 'double() doubles, on a newer MSRV', {
        'Cargo.toml': manifest('1.99'),
        'src/lib.rs': 'pub fn double(n: u32) -> u32 {\n    n * 2\n}\n',
        'tests/double.rs': '#[test]\nfn doubles() {\n    assert_eq!(raised::double(2), 4);\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold.status).not.toBe('verified');
    expect(gold.reason).toMatchObject({ kind: 'unsupported' });
    expect(gold.reason?.summary).toContain('raised@0.1.0 requires rustc 1.99');
  },
  20 * 60_000,
);
