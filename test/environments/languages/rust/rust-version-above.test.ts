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
 * detect.ts, tooOld: a crate whose `rust-version` is above every rustc here at the stage's base. The
 * environment's build stops at cargo's refusal ("rustc 1.85.0 is not supported by the following
 * packages", cargo's form since 1.7x), which is the toolchain's age: `unsupported`, not `build-failed`.
 */
testIf(missingTool('cargo'))(
  'cargo: a crate whose rust-version is above the newest rustc here is unsupported at its build',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-version-above-'));
    const manifest = '[package]\nname = "msrv_above"\nversion = "0.1.0"\nedition = "2021"\nrust-version = "1.99"\n';
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': manifest,
      'src/lib.rs': 'pub fn double(n: u32) -> u32 {\n    n\n}\n',
    });
    const chain = repo.chain('gen/rust-version-above', [
      await repo.pr(1, 'double() doubles', {
        'src/lib.rs': 'pub fn double(n: u32) -> u32 {\n    n * 2\n}\n',
        'tests/double.rs': '#[test]\nfn doubles() {\n    assert_eq!(msrv_above::double(2), 4);\n}\n',
      }),
    ]);
    await expect(goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0)).rejects.toMatchObject({
      reason: { kind: 'unsupported', summary: expect.stringContaining('msrv_above@0.1.0 requires rustc 1.99') },
    });
  },
  20 * 60_000,
);
