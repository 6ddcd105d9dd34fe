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
 * cargo.ts, gatedFeatures: the crate's features are read as cargo and rustc read them, not line by line.
 * An optional dependency written with dotted keys (`itoa.optional = true`) is a feature of its own name;
 * a feature that turns on another under which the root (a `[lib] path` of its own) turns on a nightly
 * `#![feature]` inside `all(…)`, over several lines, stays off, where the stable rustc refused the whole
 * crate (E0554) and none of the PR's tests ran.
 */
testIf(missingTool('cargo'))(
  "cargo: features read as cargo reads the manifest and rustc the root's cfg_attr",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-features-read-'));
    const root = (body: string) =>
      [
        '#![cfg_attr(',
        '    all(feature = "may_dangle", not(miri)),',
        '    feature(dropck_eyepatch)',
        ')]',
        '',
        '#[cfg(feature = "itoa")]',
        'pub fn show(n: u32) -> String {',
        `    ${body}`,
        '}',
        '',
      ].join('\n');
    const repo = await ChainRepo.create(join(dir, 'repo'), {
      'Cargo.toml': [
        '[package]',
        'name = "features_read"',
        'version = "0.1.0"',
        'edition = "2018"',
        '',
        '[lib]',
        'path = "src/root.rs"',
        '',
        '[features]',
        'may_dangle = []',
        'unstable = ["may_dangle"]',
        '',
        '[dependencies]',
        'itoa.version = "1"',
        'itoa.optional = true',
        '',
      ].join('\n'),
      'src/root.rs': root('let _ = n;\n    String::new()'),
    });
    const chain = repo.chain('gen/rust-features-read', [
      await repo.pr(1, 'show() writes the number', {
        'src/root.rs': root('itoa::Buffer::new().format(n).to_string()'),
        'tests/show.rs': [
          '#[cfg(feature = "unstable")]',
          '#[test]',
          'fn dangles() {}',
          '',
          '#[cfg(feature = "itoa")]',
          '#[test]',
          'fn shows() {',
          '    assert_eq!(features_read::show(42), "42");',
          '}',
          '',
        ].join('\n'),
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['show::shows']);
  },
  20 * 60_000,
);
