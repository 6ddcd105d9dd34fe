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
 * cargo.ts, parseCargoTest: a `compile_fail` doc test is named without its line number too (cargo
 * prints `src/lib.rs - f (line 3) - compile fail`), so a PR that moves it (lines added above it) keeps
 * its id: it passes before and after, not a FAIL_TO_PASS test of a new name that verified the stage.
 */
testIf(missingTool('cargo'))(
  'cargo: a compile_fail doc test that a PR moves keeps its id',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-doc-ids-'));
    const lib = (answer: number, above: string) =>
      `${above}/// \`\`\`compile_fail\n/// let x: u32 = "no";\n/// \`\`\`\npub fn answer() -> u32 {\n    ${answer}\n}\n\n#[cfg(test)]\nmod tests;\n`;
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': '[package]\nname = "doc_ids"\nversion = "0.1.0"\nedition = "2018"\n',
      'src/lib.rs': lib(41, ''),
      'src/tests.rs': '#[test]\nfn positive() {\n    assert!(crate::answer() > 0);\n}\n',
    });
    const chain = repo.chain('gen/rust-doc-ids', [
      await repo.pr(1, 'The answer is 42', {
        'src/lib.rs': lib(42, '//! The answer.\n//!\n//! Asked once.\n\n'),
        'src/tests.rs':
          '#[test]\nfn positive() {\n    assert!(crate::answer() > 0);\n}\n\n#[test]\nfn answers() {\n    assert_eq!(crate::answer(), 42);\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['doc_ids::tests::answers']);
    expect(gold.passToPass).toContain('doc_ids-doc::src/lib.rs - answer');
  },
  20 * 60_000,
);
