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
 * A crate's manifest with its `rust-version`. The names stay unique to each test: the data directory
 * the tests share remembers a toolchain found too old by the package's name.
 */
const manifest = (name: string, rustVersion: string) =>
  `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2021"\nrust-version = "${rustVersion}"\n`;
const double = (body: string) => `pub fn double(n: u32) -> u32 {\n    ${body}\n}\n`;
const doubles = (name: string) => `#[test]\nfn doubles() {\n    assert_eq!(${name}::double(2), 4);\n}\n`;

/**
 * A one-PR chain of crate `name`, whose base declares `rust-version` `msrv`: the PR makes double()
 * double and adds its test, with `files` besides. With the gold validation's dependencies.
 */
async function doublingPr(name: string, msrv: string, files: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-rust-version-${name}-`));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'Cargo.toml': manifest(name, msrv),
    'src/lib.rs': double('n'),
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
