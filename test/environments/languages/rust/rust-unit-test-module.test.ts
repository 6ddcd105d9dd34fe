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
 * languages/rust/index.ts: a crate whose unit tests live in a file of their own beside the module
 * (`#[cfg(test)] mod tests;` in src/lib.rs, the tests in src/tests.rs). A PR that changes that file is
 * a PR that changes its tests: they run before and after it, where the PR once counted as changing no
 * test file and nothing could verify it.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR that changes the unit tests in src/tests.rs is verified by them',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-unit-module-'));
    const lib = (answer: number) => `pub fn answer() -> u32 {\n    ${answer}\n}\n\n#[cfg(test)]\nmod tests;\n`;
    const tests = (expected: number) =>
      `#[test]\nfn positive() {\n    assert!(crate::answer() > 0);\n}\n${expected === 42 ? '\n#[test]\nfn answers() {\n    assert_eq!(crate::answer(), 42);\n}\n' : ''}`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "unit_module"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib(41),
      'src/tests.rs': tests(41),
    });
    const chain = repo.chain('gen/rust-unit-module', [
      await repo.pr(1, 'The answer is 42', { 'src/lib.rs': lib(42), 'src/tests.rs': tests(42) }),
    ]);
    expect(chain.prs[0].files.find((f) => f.path === 'src/tests.rs')?.kind).toBe('test');
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', signal: 'per-test', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['unit_module::tests::answers']);
    expect(gold.passToPass).toEqual(['unit_module::tests::positive']);
  },
  20 * 60_000,
);
