import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
/** A crate whose root declares `#![feature(asm, …)]` and which depends on nothing: Redox's system calls, of 2018. */
const NIGHTLY_ONLY = 'redox_syscall = "=0.1.40"';

async function crate(dir: string, name: string, dependencies: string, attributes = '') {
  const repo = await ChainRepo.create(join(dir, name), {
    'Cargo.toml': `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n\n${dependencies}`,
    'src/lib.rs': `${attributes}pub fn answer() -> u32 {\n    41\n}\n`,
  });
  return repo.chain(`gen/${name}`, [
    await repo.pr(1, 'answer() is 42', {
      'src/lib.rs': 'pub fn answer() -> u32 {\n    42\n}\n',
      'tests/answer.rs': `#[test]\nfn answers() {\n    assert_eq!(${name}::answer(), 42);\n}\n`,
    }),
  ]);
}

/**
 * detect.ts, NIGHTLY_ONLY: a build whose graph compiles a crate that the stable rustc refuses
 * (`#![feature]` at its root, E0554) fails before compiling anything, and says which crate; the same
 * crate where the build does not compile it (a dependency for Redox only, vendored all the same)
 * stops nothing, and the stage's tests run and verify it. Either, or the project's own `#![feature]`
 * (a crate of before Rust 1.0), is `unsupported`: no toolchain here is a nightly (nightly.ts).
 */
testIf(missingTool('cargo'))(
  'cargo: a crate the stable rustc refuses fails the build before any compile, only where the build compiles it',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-nightly-'));
    const environments = testEnvironments(docker);
    const deps = goldDeps(docker, dir, environments);

    const compiled = await crate(dir, 'nightly_dep', `[dependencies]\n${NIGHTLY_ONLY}\n`);
    const failure = await environments.forStage(compiled, 0).then(
      () => undefined,
      (err: unknown) => err as { reason?: { kind: string; tail?: string } },
    );
    expect(failure?.reason).toMatchObject({
      kind: 'unsupported',
      tail: expect.stringMatching(/error\[E0554\]: .*refuses: redox_syscall 0\.1\.40/),
    });
    // Nothing was compiled before it: not even the crate that does not need a nightly.
    expect(failure?.reason?.tail).not.toMatch(/Compiling/);

    const own = await crate(dir, 'nightly_own', '', '#![feature(test)]\n');
    await expect(environments.forStage(own, 0)).rejects.toMatchObject({
      reason: {
        kind: 'unsupported',
        summary: expect.stringMatching(/src\/lib\.rs \(E0554\): .* needs a nightly rustc/),
      },
    });

    const redoxOnly = await crate(
      dir,
      'redox_only_dep',
      `[target.'cfg(target_os = "redox")'.dependencies]\n${NIGHTLY_ONLY}\n`,
    );
    const gold = await goldTestsFor(deps, redoxOnly, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', failToPass: ['answer::answers'] });
  },
  20 * 60_000,
);
