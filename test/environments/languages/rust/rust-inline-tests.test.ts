import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/**
 * inline-tests.ts: most crates keep their unit tests in `#[cfg(test)] mod tests` inside the code file.
 * A PR that changes only src/lib.rs, its code and its tests module, is a PR with tests: its tests module
 * is overlaid on the base (and on an agent's tree) as a test file is, the agent's own tests module
 * replaced. Before, such a PR counted as changing no test file and nothing could verify it.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR that changes the unit tests inside src/lib.rs is verified by them, and judges an agent by them',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-inline-'));
    const tests = (more: string) =>
      `#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn positive() {\n        assert!(answer() > 0);\n    }\n${more}}\n`;
    const answers = '\n    #[test]\n    fn answers() {\n        assert_eq!(answer(), 42);\n    }\n';
    const lib = (body: string, testsModule: string, after = '') =>
      `/// The answer.\npub fn answer() -> u32 {\n    ${body}\n}\n\n${testsModule}${after}`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "inline"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib('41', tests('')),
    });
    // The tests module moves above a new function: what is overlaid is the items, wherever they sit.
    const pr = await repo.pr(1, 'The answer is 42', {
      'src/lib.rs': lib(
        '42',
        tests(answers),
        '\n/// Twice the answer.\npub fn twice() -> u32 {\n    2 * answer()\n}\n',
      ),
    });
    const chain = repo.chain('gen/rust-inline', [pr]);
    expect(pr.files).toEqual([expect.objectContaining({ path: 'src/lib.rs', kind: 'code' })]);

    const deps = goldDeps(docker, dir, testEnvironments(docker));
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', signal: 'per-test', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['inline::tests::answers']);
    expect(gold.passToPass).toEqual(['inline::tests::positive']);

    // An agent that wrote its own code and its own (failing) tests module: the PR's tests replace its module.
    const runKey = `inline-${randomBytes(4).toString('hex')}`;
    const agent = await StageSandbox.open(deps, chain, 0, {
      role: { kind: 'rollout', runKey, key: `${runKey}-0`, host: `inline-test-${process.pid}` },
    });
    try {
      const own =
        '#[cfg(test)]\nmod tests {\n    #[test]\n    fn mine() {\n        panic!("the agent\'s own test");\n    }\n}\n';
      await agent.writeFile('/work/repo/src/lib.rs', lib('6 * 7', own));
      const run = await agent.runPrTests(pr);
      expect(run.cases).toEqual(
        expect.arrayContaining([
          { id: 'inline::tests::answers', outcome: 'passed' },
          { id: 'inline::tests::positive', outcome: 'passed' },
        ]),
      );
      expect(run.cases?.map((c) => c.id)).not.toContain('inline::tests::mine');
      expect(run.passed).toBe(true);
      // An agent whose code redefines assert_eq! above the tests would make them assert nothing: the run fails instead.
      const hollow = 'macro_rules! assert_eq {\n    ($($t:tt)*) => {};\n}\n\n';
      await agent.writeFile('/work/repo/src/lib.rs', hollow + lib('41', own));
      const shadowed = await agent.runPrTests(pr);
      expect(shadowed).toMatchObject({
        passed: false,
        output: expect.stringMatching(/macro under the name of std's own/),
      });
    } finally {
      await agent.destroy();
    }
  },
  20 * 60_000,
);
