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
 * languages/rust/index.ts: a test that compares with a snapshot kept under `src/snapshots/` (insta's
 * layout). A PR that changes what the code prints changes the snapshot and not the test: the snapshot is
 * one of its test files, in place before the change, so the test fails then and passes after it, where
 * the snapshot came with the gold change and the PR changed no test.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR that changes a .snap snapshot and the code it checks is verified by the test reading it',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-snapshot-'));
    const lib = (greeting: string) => `pub fn greet() -> String {\n    "${greeting}".to_string()\n}\n`;
    const snap = (greeting: string) => `---\nsource: src/lib.rs\nexpression: greet()\n---\n${greeting}\n`;
    const tests =
      '\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn greets() {\n        let snap = include_str!("snapshots/snapshot__tests__greets.snap");\n        assert_eq!(snap.rsplit("---\\n").next().unwrap().trim(), super::greet());\n    }\n}\n';
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "snapshot"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib('hello') + tests,
      'src/snapshots/snapshot__tests__greets.snap': snap('hello'),
    });
    const chain = repo.chain('gen/rust-snapshot', [
      await repo.pr(1, 'greet() greets the world', {
        'src/lib.rs': lib('hello, world') + tests,
        'src/snapshots/snapshot__tests__greets.snap': snap('hello, world'),
      }),
    ]);
    expect(chain.prs[0].files.find((f) => f.path.endsWith('.snap'))?.kind).toBe('test');
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['snapshot::tests::greets']);
  },
  20 * 60_000,
);
