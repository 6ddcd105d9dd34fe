import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectRust } from '../../../../src/environments/languages/rust/detect';
import { gitDirectory } from '../../../../src/environments/languages/rust/workspace';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
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

const pkg = (name: string, deps: string) =>
  `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n${deps}`;

/**
 * workspace.ts: a crate whose dependencies are declared in a workspace member (the root depends on it by
 * path), with no Cargo.lock. The member took itoa on 2023-01-01, long after the root's manifest last
 * changed: the base resolves as of that change (itoa 1.0.5, the newest then), not of the root's (when
 * no itoa 1.0 was out, so today's crates). The PR adds ryu to the member alone: the merge's crates are
 * vendored too, so its test builds after the change offline.
 */
testIf(missingTool('cargo'))(
  "cargo: a workspace member's dependencies date the resolution and a PR that adds one is tested with it",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-member-'));
    const repo = await ChainRepo.create(
      join(dir, 'repo'),
      {
        'Cargo.toml': `${pkg('tally', 'tally-fmt = { path = "fmt" }\n')}\n[workspace]\nmembers = ["fmt"]\n`,
        'fmt/Cargo.toml': pkg('tally-fmt', ''),
        'fmt/src/lib.rs': 'pub fn show(n: u32) -> String {\n    n.to_string()\n}\n',
        'src/lib.rs': 'pub fn total(a: u32, b: u32) -> String {\n    tally_fmt::show(a + b)\n}\n',
      },
      new Date('2021-06-01T00:00:00Z'),
    );
    await repo.at(new Date('2023-01-01T00:00:00Z')).commit('Format with itoa', {
      'fmt/Cargo.toml': pkg('tally-fmt', 'itoa = "1.0"\n'),
      'fmt/src/lib.rs': 'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n',
    });
    repo.at(new Date('2024-06-01T00:00:00Z'));
    const chain = repo.chain('gen/rust-member', [
      await repo.pr(1, 'Halve with ryu', {
        'fmt/Cargo.toml': pkg('tally-fmt', 'itoa = "1.0"\nryu = "1.0"\n'),
        'fmt/src/lib.rs':
          'pub fn show(n: u32) -> String {\n    itoa::Buffer::new().format(n).to_string()\n}\n\npub fn show_float(x: f64) -> String {\n    ryu::Buffer::new().format(x).to_string()\n}\n',
        'src/lib.rs':
          'pub fn total(a: u32, b: u32) -> String {\n    tally_fmt::show(a + b)\n}\n\npub fn half(n: u32) -> String {\n    tally_fmt::show_float(f64::from(n) / 2.0)\n}\n',
        'tests/half.rs': '#[test]\nfn halves() {\n    assert_eq!(tally::half(3), "1.5");\n}\n',
      }),
    ]);
    const environments = testEnvironments(docker);
    const env = await environments.forStage(chain, 0);
    images.push(env.image);
    expect(env.manifest.resolution?.packages).toContainEqual(
      expect.objectContaining({ name: 'itoa', version: '1.0.5' }),
    );
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['half::halves']);
  },
  20 * 60_000,
);

test("cargo: a workspace's members named by a glob are among the manifests that date the fetch, a target's path is not", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-glob-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'Cargo.toml': `${pkg('tally', '')}\n[lib]\npath = "src/tally.rs"\n\n[workspace]\nmembers = ["crates/*"]\n`,
    'src/tally.rs': '',
    'crates/fmt/Cargo.toml': pkg('tally-fmt', 'tally-util = { path = "../../util" }\n'),
    'crates/fmt/src/lib.rs': '',
    'crates/README.md': 'the members\n',
    'util/Cargo.toml': pkg('tally-util', 'itoa = "1.0"\n'),
    'util/src/lib.rs': '',
  });
  const sha = await repo.head();
  const recipe = await detectRust(await gitRepoFiles(repo.path, sha), gitDirectory(repo.path, sha));
  expect(recipe?.manifests).toEqual(['Cargo.toml', 'crates/fmt/Cargo.toml', 'util/Cargo.toml']);
});
