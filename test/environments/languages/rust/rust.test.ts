import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEPS_MOUNT, type RepoFiles } from '../../../../src/environments/contract';
import { ToolchainTooOld } from '../../../../src/errors';
import { detectRust, imageCargoConfig, pinRustVersion } from '../../../../src/environments/languages/rust/detect';
import { lockedPackages } from '../../../../src/environments/languages/rust/lock-resolver';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
import { missingRealRepo, missingTool, testIf } from '../../../support/preconditions';
import { cloneBundle } from '../../../support/real-repos';
import { checkoutAt, commitDate, fetchContext } from '../../real-repos';

const files = (entries: Record<string, string>): RepoFiles => ({
  rootFiles: new Set(Object.keys(entries)),
  read: async (p) => entries[p],
});

/** A one-file library crate `name` in a temporary folder, with one dependency line. */
function crate(name: string, dependency: string): string {
  const src = mkdtempSync(join(tmpdir(), 'chainsmith-crate-'));
  mkdirSync(join(src, 'src'));
  writeFileSync(join(src, 'src/lib.rs'), 'pub fn f() {}\n');
  writeFileSync(
    join(src, 'Cargo.toml'),
    `[package]\nname = "${name}"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n${dependency}\n`,
  );
  return src;
}

describe('Rust recipe', () => {
  it('is detected from Cargo.toml, with the lock file as a manifest when one is committed', async () => {
    expect(await detectRust(files({ 'setup.py': '' }))).toBeUndefined();
    const recipe = await detectRust(
      files({ 'Cargo.toml': '[package]\nname = "a"\nrust-version = "1.56"\n', 'Cargo.lock': '' }),
    );
    expect(recipe).toMatchObject({
      language: 'rust',
      origin: 'rust-cargo',
      runner: 'cargo',
      manifests: ['Cargo.toml', 'Cargo.lock'],
      toolchain: { image: 'rust', version: '1.63' },
    });
    expect(recipe?.toolchain.note).toBeUndefined();
    expect(recipe?.setup.join('\n')).toContain(`${DEPS_MOUNT}/vendor`);
    expect(recipe?.env.CARGO_NET_OFFLINE).toBe('true');
    // Line tables, not full debuginfo, for the build and every sandbox alike (rust-debuginfo.test.ts).
    expect(recipe?.env).toMatchObject({ CARGO_PROFILE_DEV_DEBUG: '1', CARGO_PROFILE_TEST_DEBUG: '1' });
  });

  it("builds a crate that needs more than rustc 1.63 with Debian's rustc-web, and says why", async () => {
    const recipe = await detectRust(
      files({ 'Cargo.toml': '[package]\nname = "a"\nedition = "2024"\nrust-version = "1.85"\n' }),
    );
    expect(recipe?.toolchain).toMatchObject({ image: 'rust-web', version: '1.85' });
    expect(recipe?.toolchain.note).toMatch(
      /^the crate asks for rustc 1\.85, edition 2024: Debian bookworm's rustc-web 1\.85 rather than its rustc 1\.63$/,
    );
    const v4 = await detectRust(
      files({ 'Cargo.toml': '[package]\nname = "a"\nrust-version = "1.56"\n', 'Cargo.lock': 'version = 4\n' }),
    );
    expect(v4?.toolchain).toMatchObject({
      image: 'rust-web',
      note: expect.stringMatching(/^a Cargo\.lock of format 4:/),
    });
    const newer = await detectRust(files({ 'Cargo.toml': '[package]\nname = "a"\nrust-version = "1.90"\n' }));
    expect(newer?.toolchain.note).toMatch(/asks for rustc 1\.90; 1\.85 is the newest available$/);
  });

  it("builds on the host's own stable rustc where Debian's are too old for the crate or its merge, and falls back to it", async () => {
    const host = { version: '1.95', prefix: '/opt/rust', released: '2026-04-14' };
    const crate = (msrv: string) => `[package]\nname = "a"\nedition = "2021"\nrust-version = "${msrv}"\n`;
    const newer = await detectRust(files({ 'Cargo.toml': crate('1.90') }), undefined, { host });
    expect(newer?.toolchain).toEqual({
      image: 'rust-web',
      version: '1.95',
      prefix: '/opt/rust',
      note: "the crate asks for rustc 1.90: the host's rustc 1.95 rather than Debian bookworm's (rustc 1.63, rustc-web 1.85)",
    });
    expect(newer?.path).toEqual(['/opt/rust/bin']);
    expect(newer?.fallback).toBeUndefined();
    // The merge raises the rust-version: the base's environment is built for both.
    const raised = await detectRust(files({ 'Cargo.toml': crate('1.70') }), undefined, {
      host,
      merged: files({ 'Cargo.toml': crate('1.89') }),
    });
    expect(raised?.toolchain).toMatchObject({ version: '1.95', prefix: '/opt/rust' });
    // Debian's rustc where it will do, each rustc falling back to the next: 1.63, 1.85, the host's.
    const old = await detectRust(files({ 'Cargo.toml': crate('1.56') }), undefined, { host });
    expect(old?.toolchain).toEqual({ image: 'rust', version: '1.63' });
    expect(old?.path).toEqual([]);
    expect(old?.fallback?.toolchain).toMatchObject({ image: 'rust-web', version: '1.85' });
    expect(old?.fallback?.fallback?.toolchain).toMatchObject({
      version: '1.95',
      prefix: '/opt/rust',
      note: expect.stringMatching(/^rustc 1\.85 is too old for the crate or its dependencies: the host's rustc 1\.95/),
    });
    // A crate that names no rust-version: the first rustc here no older than its base (six weeks after a release).
    const undeclared = files({ 'Cargo.toml': '[package]\nname = "a"\nedition = "2021"\n' });
    const ofDay = async (day: string) =>
      (await detectRust(undeclared, undefined, { host, baseDate: async () => new Date(`${day}T12:00:00Z`) }))
        ?.toolchain;
    expect(await ofDay('2022-09-01')).toEqual({ image: 'rust', version: '1.63' });
    expect(await ofDay('2022-10-01')).toMatchObject({
      version: '1.85',
      note: "the crate names no rust-version and its base is of 2022-10-01: Debian bookworm's rustc-web 1.85 rather than its rustc 1.63",
    });
    expect(await ofDay('2025-03-31')).toMatchObject({ version: '1.85' });
    expect(await ofDay('2025-04-30')).toMatchObject({ version: '1.95', prefix: '/opt/rust' });
    expect(await ofDay('2027-01-01')).toMatchObject({ version: '1.95', prefix: '/opt/rust' });
    // A declared rust-version is the crate's own word: the date is not asked.
    const declared = await detectRust(files({ 'Cargo.toml': crate('1.56') }), undefined, {
      host,
      baseDate: async () => new Date('2026-01-01T00:00:00Z'),
    });
    expect(declared?.toolchain).toEqual({ image: 'rust', version: '1.63' });
    // rustup's toolchain file: a release it pins counts as asked for, a channel by name does not.
    const pinned = await detectRust(
      files({ 'Cargo.toml': crate('1.56'), 'rust-toolchain.toml': '[toolchain]\nchannel = "1.88.0"\n' }),
      undefined,
      { host },
    );
    expect(pinned?.toolchain).toMatchObject({
      version: '1.95',
      note: expect.stringMatching(/^rust-toolchain\.toml pins rustc 1\.88: the host's rustc 1\.95/),
    });
    const legacy = await detectRust(files({ 'Cargo.toml': crate('1.56'), 'rust-toolchain': '1.70\n' }), undefined, {
      host,
    });
    expect(legacy?.toolchain).toMatchObject({
      version: '1.85',
      note: expect.stringMatching(/^rust-toolchain pins rustc 1\.70/),
    });
    const named = await detectRust(files({ 'Cargo.toml': crate('1.56'), 'rust-toolchain': 'stable\n' }), undefined, {
      host,
    });
    expect(named?.toolchain).toEqual({ image: 'rust', version: '1.63' });
    // A host rustc no newer than rustc-web adds nothing.
    const same = await detectRust(files({ 'Cargo.toml': crate('1.90') }), undefined, {
      host: { version: '1.85', prefix: '/opt/rust', released: '2025-02-17' },
    });
    expect(same?.toolchain).toMatchObject({ image: 'rust-web', version: '1.85' });
    expect(same?.toolchain.prefix).toBeUndefined();
  });

  it('pins rust-version in [package] only, replacing, inheriting or adding it', () => {
    expect(pinRustVersion('[package]\nname = "a"\nrust-version = "1.36"\n[dependencies]\n', '1.63')).toBe(
      '[package]\nname = "a"\nrust-version = "1.63"\n[dependencies]\n',
    );
    expect(pinRustVersion('[package]\nrust-version.workspace = true\n', '1.63')).toBe(
      '[package]\nrust-version = "1.63"\n',
    );
    expect(pinRustVersion('[package]\nname = "a"\n[dependencies]\nrust-version = "x"\n', '1.63')).toBe(
      '[package]\nrust-version = "1.63"\nname = "a"\n[dependencies]\nrust-version = "x"\n',
    );
    expect(pinRustVersion('[workspace]\nmembers = []\n', '1.63')).toBe('[workspace]\nmembers = []\n');
  });

  it("points cargo vendor's source replacement at the image's copy and goes offline", () => {
    const printed =
      'To use vendored sources, add this to your .cargo/config.toml for this project:\n\n[source.crates-io]\nreplace-with = "vendored-sources"\n\n[source.vendored-sources]\ndirectory = "/tmp/d/vendor"\n';
    const config = imageCargoConfig(printed, '/tmp/d/vendor', '/home/agent/.cargo/vendor');
    expect(config).toContain('directory = "/home/agent/.cargo/vendor"');
    expect(config).toContain('[net]\noffline = true');
    expect(config).not.toContain('To use');
  });

  it('lists the locked registry packages, not the workspace', () => {
    const lock =
      'version = 3\n\n[[package]]\nname = "itoa"\nversion = "1.0.5"\nsource = "registry+x"\n\n[[package]]\nname = "serde_json"\nversion = "1.0.92"\n';
    expect(lockedPackages(lock)).toEqual([{ name: 'itoa', version: '1.0.5' }]);
  });

  testIf(missingTool('cargo'))(
    'uses a committed Cargo.lock, updated minimally (and noted) where it is behind Cargo.toml',
    async () => {
      const src = crate('stale', 'itoa = "=1.0.5"');
      writeFileSync(join(src, 'Cargo.lock'), 'version = 3\n\n[[package]]\nname = "stale"\nversion = "0.1.0"\n');
      const ctx = fetchContext(src, new Date());
      try {
        const resolution = await (await detectRust(files({ 'Cargo.toml': '', 'Cargo.lock': '' })))!.fetch!(ctx);
        expect(resolution).toMatchObject({ lock: 'committed', packages: [{ name: 'itoa', version: '1.0.5' }] });
        expect(resolution.notes.join(' ')).toMatch(/behind Cargo\.toml/);
        expect(readdirSync(join(ctx.depsDir, 'vendor'))).toEqual(['itoa']);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingTool('cargo'))(
    "resolves as of the nearest later date where nothing published by the stage's date satisfies the manifest",
    async () => {
      // itoa 1.0.1 was published on 2021-12-12 at 20:07 UTC, 1.0.2 in 2022: a manifest committed that
      // morning that asks for 1.0.1 resolves a day later, not to today's itoa.
      const src = crate('early', 'itoa = "1.0.1"');
      const ctx = fetchContext(src, new Date('2021-12-12T12:00:00Z'));
      try {
        const resolution = await (await detectRust(files({ 'Cargo.toml': '' })))!.fetch!(ctx);
        expect(resolution).toMatchObject({ lock: 'resolved', packages: [{ name: 'itoa', version: '1.0.1' }] });
        expect(resolution.notes.join(' ')).toMatch(
          /published by 2021-12-13T12:00:00Z \(nothing published by 2021-12-12/,
        );
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingTool('cargo'))(
    'resolves as of the date a requirement whose every release of that date was yanked since',
    async () => {
      // mio 0.6's requirement: net2 0.2.29 to 0.2.35 (the last of them, 0.2.33, in June 2018) were all
      // yanked in 2020, and 0.2.36 came out in November 2020. Without a lock cargo takes no yanked
      // version, so a 2019 manifest resolved only undated, to today's crates.
      const src = crate('early', 'net2 = "0.2.29"');
      const ctx = fetchContext(src, new Date('2019-06-01T00:00:00Z'));
      try {
        const resolution = await (await detectRust(files({ 'Cargo.toml': '' })))!.fetch!(ctx);
        expect(resolution).toMatchObject({ lock: 'resolved', asOf: '2019-06-01T00:00:00.000Z' });
        expect(resolution.packages).toContainEqual({ name: 'net2', version: '0.2.33' });
        expect(resolution.notes).toContain(
          'net2 0.2.33, yanked since, is the newest release of net2 ^0.2.29 published by 2019-06-01: cargo takes no yanked version without a lock, so the lock was resolved with it',
        );
        expect(readdirSync(join(ctx.depsDir, 'vendor'))).toContain('net2');
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingRealRepo('serde-rs+json', 'cargo'))(
    "says a 1.63 resolution is too old where cargo's MSRV resolver had to fall back, and offers rustc-web instead",
    async () => {
      const repo = await cloneBundle('serde-rs+json');
      // serde_json at PR #1165's base (July 2024): rust-version 1.56, but trybuild's toml needs serde_spanned for rustc 1.65.
      const sha = 'eca2658a22cb39952783cb6914eb18242659f66a';
      const src = await checkoutAt(repo, sha);
      const recipe = await detectRust(await gitRepoFiles(repo, sha));
      expect(recipe).toMatchObject({
        toolchain: { image: 'rust' },
        fallback: { toolchain: { image: 'rust-web', version: '1.85' } },
      });
      // cargo's own words, where a fetch cached before this check reaches the build (the builder then falls back too).
      expect(
        recipe!.tooOld!.test(
          'error: package `winnow v0.6.16` cannot be built because it requires rustc 1.65.0 or newer, while the currently active rustc version is 1.63.0',
        ),
      ).toBe(true);
      expect(recipe!.tooOld!.test('error[E0308]: mismatched types')).toBe(false);
      // cargo's refusal of a vendored manifest's edition: one it has never heard of, and one it knows as unstable.
      expect(
        recipe!.tooOld!.exec(
          'Caused by:\n  this version of Cargo is older than the `2024` edition, and only supports `2015`, `2018`, and `2021` editions.',
        )?.[0],
      ).toBe('this version of Cargo is older than the `2024` edition');
      expect(recipe!.tooOld!.test('Caused by:\n  feature `edition2024` is required')).toBe(true);
      // rustc's refusal of what a later rustc made stable.
      expect(
        recipe!.tooOld!.exec('  error[E0658]: use of unstable library feature `unsigned_is_multiple_of`\n -->')?.[0],
      ).toBe('error[E0658]: use of unstable library feature `unsigned_is_multiple_of`');
      const ctx = fetchContext(src, commitDate(repo, sha));
      try {
        const err = await recipe!.fetch!(ctx).catch((e: Error) => e);
        expect(err).toBeInstanceOf(ToolchainTooOld);
        expect((err as Error).message).toMatch(
          /resolved for rustc 1\.63 need a newer one: .*serde_spanned \S+ \(rust-version 1\.6[5-9]/,
        );
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  // serde_json PR #982 (integer128 to Value): its base has no Cargo.lock and declares rust-version 1.36.
  const base = 'a9c984f13e6086c093c2f7a1014148c1922bac27';
  testIf(missingRealRepo('serde-rs+json', 'cargo'))(
    'fetches serde_json at PR #982: a lock for rustc 1.63 as of the base date, vendored, resolvable offline',
    async () => {
      const repo = await cloneBundle('serde-rs+json');
      const src = await checkoutAt(repo, base);
      const recipe = await detectRust(await gitRepoFiles(repo, base));
      const ctx = fetchContext(src, commitDate(repo, base));
      try {
        const resolution = await recipe!.fetch!(ctx);
        expect(resolution).toMatchObject({
          ecosystem: 'crates',
          lock: 'resolved',
          tool: expect.stringMatching(/^cargo \d/),
        });
        const versions = Object.fromEntries(resolution.packages.map((p) => [p.name, p.version]));
        // Published before 2023-02-05: serde_derive 1.0.152 (its later versions need newer compilers).
        expect(versions.serde_derive).toBe('1.0.152');
        expect(resolution.notes.join(' ')).toMatch(/published by 2023-02-05/);
        expect(readFileSync(join(ctx.depsDir, 'Cargo.lock'), 'utf8')).toMatch(/^version = 3$/m);
        expect(readdirSync(join(ctx.depsDir, 'vendor'))).toContain('serde_derive');
        expect(readFileSync(join(ctx.depsDir, 'config.toml'), 'utf8')).toContain(
          'directory = "/home/agent/.cargo/vendor"',
        );
        // The vendored directory alone resolves the same versions offline (the config pointed back at the host copy).
        const home = join(ctx.depsDir, 'home');
        mkdirSync(home);
        writeFileSync(
          join(home, 'config.toml'),
          readFileSync(join(ctx.depsDir, 'config.toml'), 'utf8').replace(
            '/home/agent/.cargo/vendor',
            join(ctx.depsDir, 'vendor'),
          ),
        );
        execFileSync('cargo', ['generate-lockfile', '--offline'], {
          cwd: src,
          env: { ...process.env, CARGO_HOME: home },
          stdio: 'pipe',
        });
        expect(lockedPackages(readFileSync(join(src, 'Cargo.lock'), 'utf8'))).toEqual(resolution.packages);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );
});
