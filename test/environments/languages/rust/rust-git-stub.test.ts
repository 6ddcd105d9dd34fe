import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

/** A repository no host resolves (the `.invalid` top-level domain is reserved for that). */
const GONE = 'https://git.invalid/gen-stub';
/** A commit id no stub repository can hold. */
const REV = '0123456789abcdef0123456789abcdef01234567';
const pkg = (name: string) => `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n`;
const sum = (body: string) => `pub fn sum(a: u32, b: u32) -> u32 {\n    ${body}\n}\n`;

/** The two PRs both workspaces start with: one tests the `tally` crate (under `root`), one the `probe` member. */
async function rootAndMemberPrs(repo: ChainRepo, root: string) {
  return [
    await repo.pr(1, 'sum adds', {
      [`${root}src/lib.rs`]: sum('a + b'),
      [`${root}tests/sum.rs`]: '#[test]\nfn adds() {\n    assert_eq!(tally::sum(2, 3), 5);\n}\n',
    }),
    await repo.pr(2, 'probe is two', {
      'probe/src/lib.rs': 'pub fn probe() -> u32 {\n    2\n}\n',
      'probe/tests/probe.rs': '#[test]\nfn two() {\n    assert_eq!(tally_probe::probe(), 2);\n}\n',
    }),
  ];
}

/**
 * git-stubs.ts, lock-resolver.ts: a crate without a Cargo.lock whose workspace member `probe` depends on
 * a git repository the host cannot fetch (flate2's systest → ctest). The workspace resolves with a stub
 * in its place, so a PR whose tests are the root's verifies, where every stage was
 * `dependencies-unresolvable`; a PR whose tests build the member says it needs the dependency, and one
 * that makes the root itself depend on it is `dependencies-unresolvable` naming it (bytes' iovec).
 */
testIf(missingTool('cargo'))(
  'cargo: a git dependency the host cannot fetch stops only the tests that build it, and is named',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-git-stub-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': `${pkg('tally')}\n[workspace]\nmembers = ['probe']\n`,
      'src/lib.rs': sum('a - b'),
      // A literal string, as TOML allows (flate2's `members = ['systest']`, `git = '…'`).
      'probe/Cargo.toml': `${pkg('tally-probe')}\n[dependencies]\ngen-stub = { git = '${GONE}', branch = 'dev' }\n`,
      'probe/src/lib.rs': 'pub fn probe() -> u32 {\n    1\n}\n',
    });
    const chain = repo.chain('gen/rust-git-stub', [
      ...(await rootAndMemberPrs(repo, '')),
      await repo.pr(3, 'sum through the stub', {
        'Cargo.toml': `${pkg('tally')}\n[dependencies]\ngen-stub = { git = "${GONE}", branch = "dev" }\n\n[workspace]\nmembers = ['probe']\n`,
        'src/lib.rs': sum('a + b + 0'),
        'tests/more.rs': '#[test]\nfn more() {\n    assert_eq!(tally::sum(1, 1), 2);\n}\n',
      }),
    ]);
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const deps = goldDeps(docker, dir, environments);
    const root = await goldTestsFor(deps, chain, 0);
    expect(root).toMatchObject({ status: 'verified', failToPass: ['sum::adds'] });
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution?.unserved).toEqual([{ name: 'gen-stub', why: expect.stringContaining(GONE) }]);

    const member = await goldTestsFor(deps, chain, 1);
    expect(member.reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      summary: expect.stringMatching(/^the PR's tests need gen-stub, which the environment was built without/),
    });

    await expect(goldTestsFor(deps, chain, 2)).rejects.toMatchObject({
      reason: {
        kind: 'dependencies-unresolvable',
        summary: `the git dependency \`gen-stub\` (${GONE}) cannot be fetched from this host, and the tested crate builds it`,
      },
    });
  },
  20 * 60_000,
);

/**
 * git-stubs.ts: a virtual workspace without a Cargo.lock whose member `probe` depends on a git repository
 * the host cannot fetch, pinned to a commit (`rev`). The stub answers the rev, and the image builds the
 * member that does not need it, so a PR whose tests are that member's verifies, where every stage was
 * `dependencies-unresolvable`; a PR whose tests build `probe` says it needs the dependency.
 */
testIf(missingTool('cargo'))(
  'cargo: a git dependency pinned to a rev, in one member of a virtual workspace, stops only the tests that build it',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-git-stub-ws-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[workspace]\nmembers = ["tally", "probe"]\n',
      'tally/Cargo.toml': pkg('tally'),
      'tally/src/lib.rs': sum('a - b'),
      'probe/Cargo.toml': `${pkg('tally-probe')}\n[dependencies]\ngen-stub = { git = "${GONE}", rev = "${REV}" }\n`,
      'probe/src/lib.rs': 'pub fn probe() -> u32 {\n    1\n}\n',
    });
    const chain = repo.chain('gen/rust-git-stub-ws', await rootAndMemberPrs(repo, 'tally/'));
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const deps = goldDeps(docker, dir, environments);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({ status: 'verified', failToPass: ['sum::adds'] });

    const member = await goldTestsFor(deps, chain, 1);
    expect(member.reason).toMatchObject({
      kind: 'dependencies-unresolvable',
      summary: expect.stringMatching(/^the PR's tests need gen-stub, which the environment was built without/),
    });
  },
  20 * 60_000,
);
