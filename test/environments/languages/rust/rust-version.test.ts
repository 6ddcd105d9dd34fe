import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingRust, missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * A crate's manifest with its `rust-version`. The names stay unique to each test: the data directory
 * the tests share remembers a toolchain found too old by the package's name.
 */
const manifest = (name: string, rustVersion: string, edition = '2021') =>
  `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "${edition}"\nrust-version = "${rustVersion}"\n`;
const double = (body: string) => `pub fn double(n: u32) -> u32 {\n    ${body}\n}\n`;
const doubles = (name: string) => `#[test]\nfn doubles() {\n    assert_eq!(${name}::double(2), 4);\n}\n`;

/**
 * A one-PR chain of crate `name`, whose base declares `rust-version` `msrv` (or is `cargoToml` and
 * `lib`): the PR makes double() double and adds its test, with `files` besides. With the gold
 * validation's dependencies.
 */
async function doublingPr(
  name: string,
  msrv: string,
  files: Record<string, string> = {},
  cargoToml = manifest(name, msrv),
  lib = double('n'),
) {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-rust-version-${name}-`));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'Cargo.toml': cargoToml,
    'src/lib.rs': lib,
  });
  const pr = await repo.pr(1, 'double() doubles', {
    'src/lib.rs': double('n * 2'),
    'tests/double.rs': doubles(name),
    ...files,
  });
  return { chain: repo.chain(`gen/rust-version-${name}`, [pr]), deps: goldDeps(docker, dir, testEnvironments(docker)) };
}

/**
 * cargo.ts, rustcRefused: a release that raises its crate's `rust-version` past every rustc here (a
 * new MSRV). The base builds; after the change cargo refuses the crate before compiling a test
 * ("rustc 1.85.0 is not supported by the following packages"), which is the toolchain, not the
 * tests: `unsupported`, naming the crate and the rustc it requires, not `tests-not-runnable`.
 */
testIf(missingTool('cargo'))(
  "cargo: a PR that raises the crate's rust-version past the newest rustc here is unsupported",
  async () => {
    const { chain, deps } = await doublingPr('raised', '1.70', { 'Cargo.toml': manifest('raised', '1.99') });
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold.status).not.toBe('verified');
    expect(gold.reason).toMatchObject({ kind: 'unsupported' });
    expect(gold.reason?.summary).toContain('raised@0.1.0 requires rustc 1.99');
  },
  20 * 60_000,
);

/**
 * detect.ts, tooOld: a crate whose `rust-version` is above every rustc here at the stage's base. The
 * environment's build stops at cargo's refusal ("rustc 1.85.0 is not supported by the following
 * packages", cargo's form since 1.7x), which is the toolchain's age: `unsupported`, not `build-failed`.
 */
testIf(missingTool('cargo'))(
  'cargo: a crate whose rust-version is above the newest rustc here is unsupported at its build',
  async () => {
    const { chain, deps } = await doublingPr('msrv_above', '1.99');
    await expect(goldTestsFor(deps, chain, 0)).rejects.toMatchObject({
      reason: { kind: 'unsupported', summary: expect.stringContaining('msrv_above@0.1.0 requires rustc 1.99') },
    });
  },
  20 * 60_000,
);

/**
 * detect.ts, the host's rustc: a 2024-edition crate asking for rustc 1.88, whose code needs it (`let`
 * chains, stable from 1.88), is past both Debian rustcs. Its environment is the rust-web image with the
 * host's own stable rustc copied in and first on PATH (images/host-rust): the crate builds there and the
 * PR's test verifies. Where the host has no such rustc the stage is `unsupported`, as the tests above.
 */
testIf(missingRust(88))(
  "cargo: a crate that asks for a rustc newer than Debian's builds and verifies on the host's own",
  async () => {
    const even = (body: string) =>
      `pub fn double(n: u32) -> u32 {\n    ${body}\n}\n\npub fn first_even(v: &[u32]) -> Option<u32> {\n    if let Some(&x) = v.first() && x % 2 == 0 { Some(x) } else { None }\n}\n`;
    const { chain, deps } = await doublingPr(
      'let_chains',
      '1.88',
      { 'src/lib.rs': even('n * 2') },
      manifest('let_chains', '1.88', '2024'),
      even('n'),
    );
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['double::doubles'] });
    const env = await deps.environments.forStage(chain, 0);
    expect(env.manifest.toolchain.version).toMatch(/^rustc 1\.(8[89]|9\d|\d{3,})\.\d+ /);
    expect(env.manifest.toolchain.note).toContain("the host's rustc");
  },
  20 * 60_000,
);

/**
 * detect.ts, tooOld's E0658: a crate whose rust-version (1.80) says less than its code needs
 * (`is_multiple_of`, stable from 1.87). rustc-web 1.85 refuses the library feature as unstable, which
 * is the rustc's age, not the crate's fault: the environment is built again on the next rustc here, the
 * host's, where the PR's test verifies.
 */
testIf(missingRust(87))(
  "cargo: a crate whose code needs more than its rust-version says falls back to the host's rustc",
  async () => {
    const lib = (body: string) =>
      `pub fn double(n: u32) -> u32 {\n    ${body}\n}\n\npub fn even(n: u32) -> bool {\n    n.is_multiple_of(2)\n}\n`;
    const { chain, deps } = await doublingPr(
      'understated',
      '1.80',
      { 'src/lib.rs': lib('n * 2') },
      undefined,
      lib('n'),
    );
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['double::doubles'] });
    const env = await deps.environments.forStage(chain, 0);
    expect(env.manifest.toolchain.note).toMatch(
      /^rustc 1\.85 is too old for the crate or its dependencies: the host's rustc/,
    );
  },
  20 * 60_000,
);

/**
 * builder.ts, tooOld on the ladder's last rustc: a crate whose code uses a library feature no stable
 * rustc has (`Iterator::intersperse`) is refused with E0658 by every rustc here. Its reason says that
 * none here has what the build needs, naming the last rustc tried, not that the toolchain is too old;
 * alike the second time, when the refusals are remembered from the first and nothing is built.
 */
testIf(missingTool('cargo'))(
  'cargo: code that no rustc here compiles (E0658 on the last one tried) is unsupported, and says so',
  async () => {
    const lib = `${double('n')}\npub fn spaced(v: &[u8]) -> usize {\n    v.iter().copied().intersperse(0).count()\n}\n`;
    const { chain } = await doublingPr('unstable', '1.63', {}, undefined, lib);
    const failure = () =>
      testEnvironments(docker)
        .forStage(chain, 0)
        .then(
          () => undefined,
          (err: unknown) => err as { reason?: { kind: string; summary: string } },
        );
    for (const { reason } of [await failure(), await failure()].map((f) => f ?? {})) {
      expect(reason?.kind).toBe('unsupported');
      expect(reason?.summary).toMatch(
        /^no toolchain here has what the build needs \(.*, the last tried: the build at [0-9a-f]{12} says: error\[E0658\]: use of unstable library feature `iter_intersperse`/,
      );
    }
  },
  20 * 60_000,
);

/**
 * detect.ts, cratesBeyond's editions: cargo reads every vendored crate's manifest before it builds,
 * those of other platforms too. A crate of rust-version 1.63 whose wasm-only dependency (wit-bindgen
 * 0.57, edition 2024) the image never compiles still stops cargo 1.63 ("older than the `2024`
 * edition"): the fetch for rustc 1.63 says so, and the environment is rustc-web 1.85's, where the
 * PR's test verifies.
 */
testIf(missingRust(85))(
  'cargo: a vendored crate of an edition the rustc cannot read moves the crate up the ladder, whatever its platform',
  async () => {
    const cargoToml = `${manifest('wasmonly', '1.63')}\n[target.'cfg(target_arch = "wasm32")'.dependencies]\nwit-bindgen = "0.57"\n`;
    const { chain, deps } = await doublingPr('wasmonly', '1.63', {}, cargoToml);
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['double::doubles'] });
    const env = await deps.environments.forStage(chain, 0);
    expect(env.manifest.toolchain.note).toMatch(/^rustc 1\.63 is too old for the crate or its dependencies/);
  },
  20 * 60_000,
);
