import Docker from 'dockerode';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { run } from '../../../../src/process/run';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * detect.ts, cratesBeyond: a committed Cargo.lock holds every platform's dependencies; a crate only a
 * WASI build compiles (wit-bindgen 0.51, rust-version 1.87, as getrandom's in indexmap 2.14.1's lock)
 * does not decide the toolchain of a Linux build, where the stage was `unsupported` (no toolchain new
 * enough) though nothing it compiles needs more than the image's rustc.
 */
testIf(missingTool('cargo'))(
  "cargo: a locked crate of another platform's dependencies does not make the toolchain too old",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-other-platform-'));
    const manifest =
      '[package]\nname = "other_platform"\nversion = "0.1.0"\nedition = "2018"\n\n' +
      '[target.\'cfg(target_os = "wasi")\'.dependencies]\nwit-bindgen = "=0.51.0"\n';
    const lib = (n: number) => `pub fn answer() -> u32 {\n    ${n}\n}\n`;
    // The lock as its author's cargo wrote it.
    const scratch = join(dir, 'lock');
    await mkdir(join(scratch, 'src'), { recursive: true });
    await writeFile(join(scratch, 'Cargo.toml'), manifest);
    await writeFile(join(scratch, 'src', 'lib.rs'), lib(41));
    expect((await run('cargo', ['generate-lockfile'], { cwd: scratch })).exitCode).toBe(0);
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': manifest,
      'Cargo.lock': await readFile(join(scratch, 'Cargo.lock'), 'utf8'),
      'src/lib.rs': lib(41),
    });
    const chain = repo.chain('gen/rust-other-platform', [
      await repo.pr(1, 'The answer is 42', {
        'src/lib.rs': lib(42),
        'tests/answer.rs': '#[test]\nfn answers() {\n    assert_eq!(other_platform::answer(), 42);\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['answer::answers']);
  },
  20 * 60_000,
);
