import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
/** A GNU ld option mold 1.10 does not know (`mold: fatal: unknown command line option`); GNU ld takes it and changes nothing on ELF. */
const MOLD_REFUSES = '-Wl,--traditional-format';

/**
 * A test that reads its own executable: true where mold wrote the `.comment` note it leaves in every
 * output ("mold 1.10.1 (compatible with GNU ld)"). The strings it looks for are kept reversed, so
 * they are not in the binary's data of any link.
 */
const LINKED_BY_MOLD = `fn linked_by_mold() -> bool {
    let exe = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let has = |reversed: &str| {
        let text: Vec<u8> = reversed.bytes().rev().collect();
        exe.windows(text.len()).any(|w| w == text.as_slice())
    };
    has(" dlom") && has(")dl UNG htiw elbitapmoc(")
}
`;

/**
 * Environments link test binaries with mold (detect.ts, MOLD_LINKER): a PR's new test, which finds
 * mold's note in its own executable, fails before the change and passes after; where mold refuses a
 * link (here a GNU ld option it lacks, asked for by the crate's build script), the system's linker
 * links it and the tests still run and are judged (the test that finds no mold note passes).
 */
testIf(missingTool('cargo'))(
  'cargo: test binaries are linked by mold, and by the system linker where mold refuses',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-mold-'));
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "linked"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': 'pub fn answer() -> u32 {\n    41\n}\n',
    });
    const chain = repo.chain('gen/rust-mold', [
      await repo.pr(1, 'answer() is 42', {
        'src/lib.rs': 'pub fn answer() -> u32 {\n    42\n}\n',
        'tests/mold.rs': `${LINKED_BY_MOLD}\n#[test]\nfn by_mold() {\n    assert!(linked_by_mold());\n    assert_eq!(linked::answer(), 42);\n}\n`,
      }),
      await repo.pr(2, 'answer() is 43; the tests ask the linker for an option mold lacks', {
        'src/lib.rs': 'pub fn answer() -> u32 {\n    43\n}\n',
        'Cargo.toml': '[package]\nname = "linked"\nversion = "0.1.0"\nedition = "2018"\nbuild = "build.rs"\n',
        'build.rs': `fn main() {\n    println!("cargo:rustc-link-arg-tests=${MOLD_REFUSES}");\n}\n`,
        'tests/mold.rs': null,
        'tests/system.rs': `${LINKED_BY_MOLD}\n#[test]\nfn by_system_linker() {\n    assert!(!linked_by_mold());\n    assert_eq!(linked::answer(), 43);\n}\n`,
      }),
    ]);
    const environments = testEnvironments(docker);
    const deps = goldDeps(docker, dir, environments);
    const first = await goldTestsFor(deps, chain, 0);
    expect(first).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(first.failToPass).toEqual(['mold::by_mold']);
    const second = await goldTestsFor(deps, chain, 1);
    expect(second).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(second.failToPass).toEqual(['system::by_system_linker']);
  },
  20 * 60_000,
);
