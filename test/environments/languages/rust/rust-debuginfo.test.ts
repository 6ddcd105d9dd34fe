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
 * Environments compile tests with line tables only (limited debuginfo, not the dev profile's full):
 * a test that reads a backtrace still finds the file and line of the code it called. A PR makes
 * `trace()` return a captured backtrace where it returned nothing; its new test, which looks for
 * `src/lib.rs:` in it, is FAIL_TO_PASS (without line tables the frame names the function only).
 */
testIf(missingTool('cargo'))(
  'cargo: test builds keep line tables, so a backtrace still names file and line',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-debuginfo-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      // std::backtrace needs rustc 1.65: rustc-web's toolchain.
      'Cargo.toml': '[package]\nname = "tracer"\nversion = "0.1.0"\nedition = "2021"\nrust-version = "1.80"\n',
      'src/lib.rs': 'pub fn trace() -> String {\n    String::new()\n}\n',
    });
    const chain = repo.chain('gen/rust-debuginfo', [
      await repo.pr(1, 'trace() returns a backtrace', {
        'src/lib.rs': 'pub fn trace() -> String {\n    std::backtrace::Backtrace::force_capture().to_string()\n}\n',
        'tests/trace.rs':
          '#[test]\nfn names_file_and_line() {\n    let t = tracer::trace();\n    assert!(t.contains("src/lib.rs:2"), "{}", t);\n}\n',
      }),
    ]);
    await repo.checkout(chain.prs[0].mergeSha);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['trace::names_file_and_line']);
  },
  20 * 60_000,
);
