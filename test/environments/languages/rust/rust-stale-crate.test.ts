import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { staleCrates } from '../../../../src/environments/languages/rust/stale';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

test('the vendored crates a build shows failing in their own source, as cargo specs', () => {
  const vendor = '/home/agent/.cargo/vendor';
  const output = [
    '   Compiling url v1.5.1',
    'error[E0713]: borrow may still be in use when destructor runs',
    `   --> ${vendor}/url/src/form_urlencoded.rs:251:40`,
    'error[E0499]: cannot borrow as mutable more than once',
    `  --> ${vendor}/percent-encoding-1.0.0/lib.rs:10:5`,
    'error: could not compile `url` due to previous error',
    'error: could not compile `percent-encoding` (lib) due to 1 previous error',
    '  --> src/lib.rs:3:5',
    'error: could not compile `acme` due to previous error',
  ].join('\n');
  expect(staleCrates(output, vendor)).toEqual(['percent-encoding@1.0.0', 'url']);
  // The project's own error, or a vendored path without cargo's verdict on that crate, raises nothing.
  expect(staleCrates(`  --> ${vendor}/url/src/lib.rs:1:1\nerror: could not compile \`acme\``, vendor)).toEqual([]);
});

/**
 * stale.ts, builder.ts: a crate of 2017 without a Cargo.lock depends on url 1.5, which resolves as of its
 * date to url 1.5.1, whose code rustc 1.63's borrow checker refuses (E0713). The build that fails so is
 * fetched again with url raised to its newest 1.x, and the stage is verified, where the environment
 * was `build-failed` (textwrap's 2017 stages, through version-sync's url).
 */
testIf(missingTool('cargo'))(
  'cargo: a dated crate that today’s rustc refuses is raised to its newest allowed release',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-stale-'));
    const lib = (body: string) => `extern crate url;\n\npub fn host(s: &str) -> Option<String> {\n    ${body}\n}\n`;
    const repo = await ChainRepo.create(
      join(dir, 'repo'),
      {
        'Cargo.toml': '[package]\nname = "stale"\nversion = "0.1.0"\n\n[dependencies]\nurl = "1.5"\n',
        'src/lib.rs': lib('url::Url::parse(s).ok().map(|u| u.scheme().to_string())'),
      },
      new Date('2017-10-01T00:00:00Z'),
    );
    const chain = repo.chain('gen/rust-stale', [
      await repo.pr(1, 'host() gives the host', {
        'src/lib.rs': lib('url::Url::parse(s).ok().and_then(|u| u.host_str().map(String::from))'),
        'tests/host.rs':
          'extern crate stale;\n\n#[test]\nfn host() {\n    assert_eq!(stale::host("http://example.org/x").as_deref(), Some("example.org"));\n}\n',
      }),
    ]);
    const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', runner: 'cargo', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['host::host']);
  },
  20 * 60_000,
);
