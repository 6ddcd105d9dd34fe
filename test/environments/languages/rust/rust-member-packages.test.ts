import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeImages } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  await removeImages(docker, images);
});

const pkg = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n`;

/**
 * cargo.ts, workspacePackages: a PR whose tests are a workspace member's runs that member's package, not
 * every member's. Another member's build script panics in the test build (as flate2's systest, whose
 * ctest build script trips a later rustc's debug assertions): under --workspace cargo stops there before
 * any test runs, before and after the change alike.
 */
testIf(missingTool('cargo'))(
  "cargo: a PR's tests in a workspace member run that member's package, whatever another member's build does",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-member-packages-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': `${pkg('tally')}\n[workspace]\nmembers = ["count", "probe"]\n`,
      'src/lib.rs': '',
      'count/Cargo.toml': pkg('tally-count'),
      'count/src/lib.rs': 'pub fn double(n: u32) -> u32 {\n    n + n\n}\n',
      'probe/Cargo.toml': pkg('tally-probe'),
      'probe/build.rs': 'fn main() {\n    panic!("probe");\n}\n',
      'probe/src/lib.rs': '',
    });
    const chain = repo.chain('gen/rust-member-packages', [
      await repo.pr(1, 'Add triple', {
        'count/src/lib.rs':
          'pub fn double(n: u32) -> u32 {\n    n + n\n}\n\npub fn triple(n: u32) -> u32 {\n    n * 3\n}\n',
        'count/tests/triple.rs': '#[test]\nfn triples() {\n    assert_eq!(tally_count::triple(2), 6);\n}\n',
      }),
    ]);
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    images.push(env.image);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['triple::triples']);
  },
  20 * 60_000,
);
