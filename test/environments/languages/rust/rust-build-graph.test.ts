import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerContainer } from '../../../../src/container/docker-container';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/** The file names under the image's `target/debug/deps`. */
async function compiled(image: string, mirrorPath: string): Promise<string[]> {
  const plain = await DockerContainer.create(docker, {
    image,
    mirrorPath,
    labels: { 'chainsmith.test': 'rust-build-graph' },
    memoryMb: 1024,
    pidsLimit: 256,
  });
  try {
    const r = await plain.exec('ls "$CARGO_TARGET_DIR/debug/deps"', { timeoutSeconds: 60, maxOutputChars: 20_000 });
    expect(r.exitCode).toBe(0);
    return r.output.trim().split('\n');
  } finally {
    await plain.destroy();
  }
}

/**
 * detect.ts, BUILD_GRAPH: the environment's build compiles the dependency graph, dev-dependencies
 * included, and the project's lib and bins, not its integration tests (a stage's sandbox compiles the
 * PR's own); the stage's tests still run and verify it. A crate with only a bin gets its
 * dev-dependencies compiled all the same; a workspace whose root has no lib where a member has one builds.
 */
testIf(missingTool('cargo'))(
  "cargo: the image compiles the dependencies and the crate's lib, not its integration tests",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-graph-'));
    const environments = testEnvironments(docker);
    const deps = goldDeps(docker, dir, environments);
    const manifest = (name: string) =>
      `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n\n[dev-dependencies]\nitoa = "1"\n`;

    const lib = await ChainRepo.create(join(dir, 'graph_lib'), {
      'Cargo.toml': manifest('graph_lib'),
      'src/lib.rs': 'pub fn answer() -> u32 {\n    41\n}\n',
      'tests/old.rs': '#[test]\nfn formats() {\n    assert_eq!(itoa::Buffer::new().format(7u8), "7");\n}\n',
    });
    const chain = lib.chain('gen/graph-lib', [
      await lib.pr(1, 'answer() is 42', {
        'src/lib.rs': 'pub fn answer() -> u32 {\n    42\n}\n',
        'tests/answer.rs': '#[test]\nfn answers() {\n    assert_eq!(graph_lib::answer(), 42);\n}\n',
      }),
    ]);
    const env = await environments.forStage(chain, 0);
    const files = await compiled(env.image, lib.path);
    expect(files.some((f) => /^libitoa-[0-9a-f]+\.rlib$/.test(f))).toBe(true);
    // The lib's unit-test harness (proof it compiles), no integration test.
    expect(files.some((f) => /^graph_lib-[0-9a-f]+$/.test(f))).toBe(true);
    expect(files.filter((f) => /^old-[0-9a-f]+$/.test(f))).toEqual([]);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({ status: 'verified', failToPass: ['answer::answers'] });

    const bin = await ChainRepo.create(join(dir, 'graph_bin'), {
      'Cargo.toml': manifest('graph_bin'),
      'src/main.rs': 'fn main() {\n    println!("{}", 42);\n}\n',
    });
    const binChain = bin.chain('gen/graph-bin', [
      await bin.pr(1, 'a test', { 'tests/fmt.rs': '#[test]\nfn fmt() {\n    assert_eq!(format!("{}", 1), "1");\n}\n' }),
    ]);
    const binEnv = await environments.forStage(binChain, 0);
    expect((await compiled(binEnv.image, bin.path)).some((f) => /^libitoa-[0-9a-f]+\.rlib$/.test(f))).toBe(true);

    // A root package with a bin only, in a workspace whose member has the lib (ripgrep's layout): the
    // members' kinds ask for --lib, which the root cannot give, and the build goes on as a whole.
    const ws = await ChainRepo.create(join(dir, 'graph_ws'), {
      'Cargo.toml': `${manifest('graph_ws')}\n[dependencies]\ncore_lib = { path = "core" }\n\n[workspace]\nmembers = ["core"]\n`,
      'src/main.rs': 'fn main() {\n    println!("{}", core_lib::answer());\n}\n',
      'core/Cargo.toml': '[package]\nname = "core_lib"\nversion = "0.1.0"\nedition = "2018"\n',
      'core/src/lib.rs': 'pub fn answer() -> u32 {\n    42\n}\n',
    });
    const wsChain = ws.chain('gen/graph-ws', [
      await ws.pr(1, 'a test', { 'tests/fmt.rs': '#[test]\nfn fmt() {\n    assert_eq!(format!("{}", 1), "1");\n}\n' }),
    ]);
    const wsEnv = await environments.forStage(wsChain, 0);
    expect((await compiled(wsEnv.image, ws.path)).some((f) => /^graph_ws-[0-9a-f]+$/.test(f))).toBe(true);
  },
  20 * 60_000,
);
