import Docker from 'dockerode';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

const MANIFEST = '[package]\nname = "merge_lock"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\nitoa = "1"\n';
/** An older itoa than the base's resolution takes: only the PR's lock names it. */
const PINNED = '1.0.10';

/** A Cargo.lock of MANIFEST pinning itoa at PINNED, written by the host's cargo as a developer's would be. */
function lockPinningItoa(dir: string): string {
  const crate = join(dir, 'lock');
  mkdirSync(join(crate, 'src'), { recursive: true });
  writeFileSync(join(crate, 'Cargo.toml'), MANIFEST);
  writeFileSync(join(crate, 'src', 'lib.rs'), '');
  execFileSync('cargo', ['generate-lockfile', '-q'], { cwd: crate });
  execFileSync('cargo', ['update', '-q', '-p', 'itoa', '--precise', PINNED], { cwd: crate });
  return readFileSync(join(crate, 'Cargo.lock'), 'utf8');
}

/**
 * detect.ts, mergeLocked: a crate with no Cargo.lock whose PR commits one (a release packaged by cargo
 * 1.84 or later carries its lock; a repository starts tracking it). The base's environment resolves
 * itoa as of its date; the PR's tests run with the PR's lock, which pins an older itoa. That lock is
 * fetched as the merge's own and its crates vendored beside the base's, so the run after the change
 * finds itoa 1.0.10 offline instead of failing to select it.
 */
testIf(missingTool('cargo'))(
  'cargo: a PR that commits a Cargo.lock is tested with the crates that lock pins',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-merge-lock-'));
    const lock = lockPinningItoa(dir);
    expect(lock).toContain(`name = "itoa"\nversion = "${PINNED}"`);
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': MANIFEST,
      'src/lib.rs': 'pub fn show(n: u32) -> String {\n    let _ = n;\n    String::new()\n}\n',
    });
    const chain = repo.chain('gen/rust-merge-lock', [
      await repo.pr(1, 'show() writes the number', {
        'Cargo.lock': lock,
        'src/lib.rs': 'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n',
        'tests/show.rs': '#[test]\nfn shows() {\n    assert_eq!(merge_lock::show(42), "42");\n}\n',
      }),
    ]);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['show::shows']);
    // The base resolved another itoa: the environment holds both, the pinned one from the PR's lock alone.
    const env = await environments.forStage(chain, 0);
    const itoas = (env.manifest.resolution?.packages ?? []).filter((p) => p.name === 'itoa').map((p) => p.version);
    expect(itoas).toContain(PINNED);
    expect(itoas.length).toBe(2);
  },
  20 * 60_000,
);
