import Docker from 'dockerode';
import { mkdtemp, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutLines } from '../../../../src/container/checkout';
import { DockerContainer } from '../../../../src/container/docker-container';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();

/** The library's incremental sessions under the shared directory, each with the inodes of the object files rustc kept in it. */
async function librarySessions(shared: string): Promise<Map<string, number[]>> {
  const sessions = new Map<string, number[]>();
  for (const crate of (await readdir(shared)).filter((d) => d.startsWith('calc-'))) {
    for (const session of await readdir(join(shared, crate))) {
      if (!session.startsWith('s-') || session.endsWith('.lock')) continue;
      const files = (await readdir(join(shared, crate, session))).filter((f) => f.endsWith('.o'));
      sessions.set(
        join(crate, session),
        await Promise.all(files.map(async (f) => (await stat(join(shared, crate, session, f))).ino)),
      );
    }
  }
  return sessions;
}

/** The library's sessions in the image's own incremental directory, as a sandbox without the shared one (an agent's) has it. */
async function imageLibrarySessions(image: string, mirrorPath: string): Promise<string[]> {
  const plain = await DockerContainer.create(docker, {
    image,
    mirrorPath,
    labels: { 'chainsmith.test': 'rust-incremental' },
    memoryMb: 1024,
    pidsLimit: 256,
  });
  try {
    const r = await plain.exec(
      'i="$CARGO_TARGET_DIR/debug/incremental"; test ! -L "$i" && cd "$i" && for d in calc-*/s-*; do case $d in *.lock) ;; *) echo $d;; esac; done',
      { timeoutSeconds: 60, maxOutputChars: 10_000 },
    );
    expect(r.exitCode).toBe(0);
    return r.output.trim().split('\n');
  } finally {
    await plain.destroy();
  }
}

/**
 * rustc's incremental state is shared by gold validation's sandboxes: the next stage's base (the
 * previous stage's merge) compiles from what the previous stage's gold runs left, rustc hard-linking
 * the object files of what did not change into its new session; what did change is compiled again
 * (the next stage's new test fails before its change and passes after). An agent's sandbox keeps the
 * image's own state.
 */
testIf(missingTool('cargo'))(
  "gold sandboxes share rustc's incremental state: the next stage reuses what did not change, and sees what did",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-rust-incremental-'));
    const version = (n: number) => `pub fn version() -> u32 {\n    ${n}\n}\n`;
    const test = (n: number) => `#[test]\nfn version_is_${n}() {\n    assert_eq!(calc::version::version(), ${n});\n}\n`;
    const repo = await ChainRepo.create(join(dir, 'calc'), {
      'Cargo.toml': '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n',
      'src/lib.rs': 'pub mod math;\npub mod version;\n',
      'src/math.rs': 'pub fn add(a: u64, b: u64) -> u64 {\n    a.wrapping_add(b)\n}\n',
      'src/version.rs': version(1),
      'tests/math.rs': '#[test]\nfn adds() {\n    assert_eq!(calc::math::add(1, 2), 3);\n}\n',
    });
    const first = await repo.pr(1, 'Version 2', { 'src/version.rs': version(2), 'tests/version.rs': test(2) });
    const second = await repo.pr(2, 'Version 3', { 'src/version.rs': version(3), 'tests/version.rs': test(3) });
    const chain = repo.chain('gen/calc-rust', [first, second]);
    // A data directory of its own: its shared state starts empty.
    const environments = testEnvironments(docker, {}, join(dir, 'data'));
    const deps = goldDeps(docker, dir, environments);
    const env = await environments.forStage(chain, 0);
    expect((await environments.forStage(chain, 1)).image).toBe(env.image);
    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['version::version_is_2'],
    });
    const shared = join(dir, 'data', 'build-cache', 'rust');
    expect(await readdir(shared)).toContain(`.seeded-${env.image.replace(':', '_')}`);
    // Stage 1's gold runs wrote sessions of their own there (rustc keeps each crate's newest: its merge's).
    const sessions = await librarySessions(shared);
    expect(sessions.size).toBeGreaterThan(0);
    const imageSessions = await imageLibrarySessions(env.image, repo.path);
    expect([...sessions.keys()].filter((s) => !imageSessions.includes(s)).length).toBeGreaterThan(0);

    // Stage 2's base (stage 1's merge) compiles from those sessions: rustc, asked to say so, links their files in.
    const gold = await StageSandbox.open(deps, chain, 1, { role: { kind: 'gold' }, carryPatch: '' }, env);
    try {
      const r = await gold.exec(
        [
          'set -e',
          ...checkoutLines(second.baseSha),
          `printf '#!/bin/sh\\nRUSTC_BOOTSTRAP=1 exec "$@" -Zincremental-info\\n' > /tmp/info && chmod +x /tmp/info`,
          'RUSTC_WRAPPER=/tmp/info cargo test --offline --no-run --test version 2>&1',
        ].join('\n'),
        { timeoutSeconds: 600, maxOutputChars: 200_000, cwd: '/work' },
      );
      expect(r.exitCode).toBe(0);
      expect(r.output).toMatch(/session directory: [1-9]\d* files hard-linked/);
    } finally {
      await gold.destroy();
    }

    // Stage 2's change is seen: its new test fails at its base and passes at its merge.
    expect(await goldTestsFor(deps, chain, 1)).toMatchObject({
      status: 'verified',
      failToPass: ['version::version_is_3'],
    });
    expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  },
  20 * 60_000,
);
