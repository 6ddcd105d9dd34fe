import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { loadConfig } from '../../src/config';
import { baseImageTag } from '../../src/environments/images';
import { environmentsFrom, sandboxSpecFrom } from '../../src/environments/from-config';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { ChainRepo } from '../support/chain-repo';
import { missingTool, testIf } from '../support/preconditions';

const docker = new Docker();

/**
 * config.ts, sandbox.pidsLimit: a stress test that holds a thousand threads alive at once (once_cell's
 * get_or_init_stress, crossbeam's and parking_lot's likewise) runs in a sandbox of the default limits,
 * where at 512 its threads could not be spawned and the stage was judged on a test that could not run.
 */
testIf(missingTool('cargo'))(
  'the default sandbox runs a test that holds a thousand threads',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-threads-'));
    const lib = (answer: number) => `pub fn answer() -> u32 {\n    ${answer}\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "threads"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib(41),
    });
    const chain = repo.chain('gen/threads', [
      await repo.pr(1, 'The answer is 42', {
        'src/lib.rs': lib(42),
        'tests/stress.rs': [
          'use std::sync::{Arc, Barrier};',
          '',
          '#[test]',
          'fn a_thousand_threads_agree() {',
          '    let barrier = Arc::new(Barrier::new(1000));',
          '    let threads: Vec<_> = (0..1000)',
          '        .map(|_| {',
          '            let barrier = Arc::clone(&barrier);',
          '            std::thread::Builder::new()',
          '                .stack_size(64 * 1024)',
          '                .spawn(move || {',
          '                    barrier.wait();',
          '                    threads::answer()',
          '                })',
          '                .expect("a thread")',
          '        })',
          '        .collect();',
          '    assert!(threads.into_iter().all(|t| t.join().unwrap() == 42));',
          '}',
          '',
        ].join('\n'),
      }),
    ]);
    const config = loadConfig({ env: { CHAINSMITH_HOME: join(dir, 'home') }, cwd: dir });
    const deps = {
      docker,
      store: new ArtifactStore(join(dir, 'artifacts')),
      sandbox: sandboxSpecFrom(config),
      environments: environmentsFrom(config, docker, baseImageTag()),
    };
    const gold = await goldTestsFor(deps, chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['stress::a_thousand_threads_agree']);
  },
  20 * 60_000,
);
