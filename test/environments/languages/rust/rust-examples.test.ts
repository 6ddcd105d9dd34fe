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
 * cargo.ts, examplesFirst: an integration test that runs one of the crate's examples (once_cell's
 * reentrant_init runs `target/debug/examples/reentrant_init_deadlocks`) finds it built where the run is
 * narrowed to its target (`--test run`), which builds no example: it verifies the stage, where it failed
 * before and after the change alike.
 */
testIf(missingTool('cargo'))(
  'cargo: a test that runs an example finds it built under a narrowed run',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-examples-'));
    const lib = (answer: number) => `pub fn answer() -> u32 {\n    ${answer}\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "with_examples"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib(41),
      'examples/answer.rs': 'fn main() {\n    println!("{}", with_examples::answer());\n}\n',
    });
    const chain = repo.chain('gen/rust-examples', [
      await repo.pr(1, 'The answer is 42', {
        'src/lib.rs': lib(42),
        'tests/run.rs': [
          '#[test]',
          'fn example_prints_42() {',
          '    let mut exe = std::env::current_exe().unwrap();',
          '    exe.pop();',
          '    exe.pop();',
          '    exe.push("examples");',
          '    exe.push("answer");',
          '    let out = std::process::Command::new(exe).output().unwrap();',
          '    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "42");',
          '}',
          '',
        ].join('\n'),
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['run::example_prints_42']);
  },
  20 * 60_000,
);
