import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChainRepo } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * detect.ts, BUILD_GRAPH: a crate that does not compile at the stage's base fails its environment with
 * a reason that names the build (`cargo test --no-run`), its exit code and rustc's error, where the
 * reason once named the step's first line, a `cargo metadata` that had succeeded.
 */
testIf(missingTool('cargo'))(
  "cargo: a build that fails names cargo's build as the failing command",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-build-failed-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "broken"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': 'pub fn answer() -> u32 {\n    "forty-one"\n}\n',
    });
    const chain = repo.chain('gen/rust-build-failed', [
      await repo.pr(1, 'The answer is a number', { 'src/lib.rs': 'pub fn answer() -> u32 {\n    42\n}\n' }),
    ]);
    const failure = await testEnvironments(docker)
      .forStage(chain, 0)
      .then(
        () => undefined,
        (err: unknown) => err as { reason?: { kind: string; command?: string; exitCode?: number; tail?: string } },
      );
    expect(failure?.reason).toMatchObject({
      kind: 'build-failed',
      command: expect.stringMatching(/^build_graph\(\) \{ cargo test --no-run/),
      exitCode: expect.any(Number),
      tail: expect.stringMatching(/error\[E0308\]: mismatched types/),
    });
  },
  20 * 60_000,
);
