import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ToolchainTooOld } from '../../../errors';
import { DEPS_MOUNT, type FetchContext, type LanguageRecipe, type RepoFiles, type Resolution } from '../../contract';
import { compareVersions, highestVersion, mustRun, toolFailure, toolVersion } from '../host-command';
import { runTool, type ToolRun } from '../../host-tools';
import { unionVendor } from '../../merge-deps';
import { FETCH_GIT_STUBS, withoutStubs } from './git-stubs';
import { explainGit, LockResolver, lockedPackages } from './lock-resolver';
import { type HostRust } from './host-rust';
import { needsNightly } from './nightly';
import { raiseCrates, staleCrates } from './stale';
import { localManifests, type ListDirectory } from './workspace';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type RustRecipe = LanguageRecipe<'rust', 'cargo', 'rust' | 'rust-web'>;

/** Debian bookworm's rustc (its cargo 0.66 calls itself 1.65). */
export const RUSTC_VERSION = '1.63';
/** Debian bookworm's rustc-web (packaged for building browsers): the toolchain of crates that need more than RUSTC_VERSION. */
export const RUSTC_WEB_VERSION = '1.85';
/**
 * Rust's release cadence: a stable release every six weeks. A crate whose base is older than a rustc's
 * release day plus this was written for that rustc or an older one.
 */
const RELEASE_DAYS = 42;
const CARGO_HOME = '/home/agent/.cargo';
/** Outside the repository, so the image keeps the compiled dependencies and test runs build only the crate. */
const TARGET_DIR = '/home/agent/.cargo-target';
/** Days after the stage's date tried in turn where nothing published by then satisfies the manifests. */
const LATER_DAYS = [0, 1, 7, 30, 90];
/**
 * Test builds with line tables but not the full debuginfo (types, variables) of cargo's dev and test
 * profiles, which only a debugger reads: backtraces and panics still name file and line, so no test
 * outcome changes, and rustc and the linker write less (serde_json: the environment's build 68 CPU-s
 * where it was 74, a stage's first test run 28.5 where it was 34.6). Set in the image, so the build
 * and every sandbox compile alike (a setting that differed would rebuild every dependency).
 */
const LIMITED_DEBUGINFO = { CARGO_PROFILE_DEV_DEBUG: '1', CARGO_PROFILE_TEST_DEBUG: '1' };
/**
 * rustc's incremental state, shared by gold sandboxes across stages and chains (as Go's GOCACHE): a
 * sandbox's first run compiles the crate under the PR's feature sets, which the image's build did not,
 * and the next stage's base is mostly this stage's merge. Safe to share as a developer's target dir
 * keeps it across edits and checkouts (and as the image's own serves every later stage): rustc reuses
 * a result only where the stable hashes of all its inputs are unchanged, rejects state another rustc
 * wrote, and locks each session against concurrent compilers; each crate's directory is named by
 * cargo's metadata hash (rustc, features, profile, dependencies, the crate's version). cargo still
 * decides what to compile from the sandbox's own target dir.
 */
const INCREMENTAL_SHARED = {
  dir: '/cache/rustc-incremental',
  env: {},
  seedFrom: `${TARGET_DIR}/debug/incremental`,
  link: `${TARGET_DIR}/debug/incremental`,
};
/**
 * Test binaries, build scripts and proc-macros linked by mold where the toolchain image has it (Debian
 * bookworm's, images/toolchains/rust*): the same programs, linked with less CPU than GNU ld's (serde_json
 * at 1.0.128 on rustc-web, one container each: the environment's build 76.8 → 70.6 CPU-s, a stage's
 * first test build 17.2 → 14.7, a test target's relink 2.0 → 1.1). Through the linker of the host
 * triple in CARGO_HOME's config, the lowest of cargo's config files, so a project's own linker (its
 * .cargo/config.toml, or `-C linker` in its rustflags) still wins; a wrapper of the system's cc, so rustc drives it
 * as before (`-fuse-ld=mold`, which gcc 12 takes). Where mold refuses a link (a GNU ld option or linker
 * script it lacks), the system's linker links it again, so no build fails for the linker's sake.
 */
const MOLD_LINKER = [
  'if command -v mold >/dev/null; then',
  `  printf '#!/bin/sh\ncc -fuse-ld=mold "$@" || exec cc "$@"\n' >${CARGO_HOME}/cc-mold`,
  `  chmod +x ${CARGO_HOME}/cc-mold`,
  `  printf '\n[target.%s]\nlinker = "%s"\n' "$(rustc -vV | sed -n 's/^host: //p')" ${CARGO_HOME}/cc-mold >>${CARGO_HOME}/config.toml`,
  'fi',
].join('\n');
/**
 * Before the build compiles anything: a crate of its dependency graph whose root declares `#![feature(…)]`,
 * which the image's rustc (a stable release) refuses with E0554 whatever else the crate holds, fails the
 * build now instead of after its dependencies compiled (serde_json's 2018–2019 dev-dependency
 * compiletest_rs: 25–29 CPU-s a build, each ending at that error). rustc itself is asked, on the crate's
 * root alone (it reports E0554 before it needs the crate's dependencies), so a `#![feature` in a comment
 * or under `cfg_attr` does not count; and only crates `cargo tree` says this build compiles (for this
 * target, default features, dev-dependencies of the root alone: a Redox-only crate is not one). Nothing
 * is decided where RUSTC_BOOTSTRAP is set or the project's cargo config names it (rustc then takes
 * `#![feature]`); where a crate's root or name is not found the full build runs, as before.
 */
const NIGHTLY_ONLY = [
  "# crates this build compiles that rustc's stable channel refuses (#![feature], E0554)",
  'nightly=',
  'if [ -z "${RUSTC_BOOTSTRAP:-}" ] && ! grep -qs RUSTC_BOOTSTRAP .cargo/config .cargo/config.toml; then',
  `  for d in ${CARGO_HOME}/vendor/*/; do`,
  `    root=$(sed -n '/^\\[lib\\]/,/^\\[/s/^path *= *"\\(.*\\)"/\\1/p' "$d/Cargo.toml" | head -n 1 || true)`,
  '    root="$d${root:-src/lib.rs}"',
  '    grep -qs \'^[[:space:]]*#!\\[feature\' "$root" || continue',
  `    ed=$(sed -n 's/^edition *= *"\\([0-9]*\\)".*/\\1/p' "$d/Cargo.toml" | head -n 1 || true)`,
  '    out=$(rustc --edition "${ed:-2015}" --crate-type lib --emit metadata -o /tmp/nightly-probe.rmeta "$root" 2>&1 || true)',
  '    case "$out" in *E0554*) ;; *) continue ;; esac',
  `    name=$(sed -n '/^\\[package\\]/,/^\\[/s/^name *= *"\\(.*\\)"/\\1/p' "$d/Cargo.toml" | head -n 1 || true)`,
  `    version=$(sed -n '/^\\[package\\]/,/^\\[/s/^version *= *"\\(.*\\)"/\\1/p' "$d/Cargo.toml" | head -n 1 || true)`,
  `    [ -n "\${built+x}" ] || built=$(cargo tree --offline -e normal,build,dev --prefix none -f '{p}' 2>/dev/null | sed 's/ (.*//' | sort -u) || built=`,
  '    if grep -qxF "$name v$version" <<<"$built"; then nightly="$nightly $name $version,"; fi',
  '  done',
  'fi',
  'if [ -n "$nightly" ]; then',
  '  echo "error[E0554]: this build compiles crates whose root declares #![feature], which $(rustc --version) (a stable release) refuses:${nightly%,}"',
  '  exit 101',
  'fi',
].join('\n');
/**
 * What the image compiles: every crate of the dependency graph, dev-dependencies too (which cargo builds
 * only for a test target), and the project's lib and bins in their unit-test form, which proves the
 * project compiles on the image's rustc. Not the integration tests, examples and benches `cargo test
 * --no-run` adds: a sandbox runs the PR's test files, which the PR changes, under the features its tests
 * are gated on, and links them against a lib the stages after the image's commit have changed, so none
 * of those compiles was reused (serde_json: about 20 CPU-s of each environment's build). A project with
 * neither lib nor bin (tests only) builds as before: its test targets are all that pulls in its
 * dev-dependencies. Where git stubs stand in (`stubs`), only the packages FETCH_GIT_STUBS names in `$built`
 * (none: the default ones): a member that builds a stub does not compile.
 */
const buildGraph = (stubs: boolean) =>
  [
    // The build comes first, as a function the lines choosing its targets then call: a failed setup's reason
    // names the step by its first line (builder.ts, failedSetupCommand), which then says what failed.
    `build_graph() { cargo test --no-run --offline${stubs ? ' $built' : ''} "$@"; }`,
    `kinds=$(cargo metadata --offline --no-deps --format-version 1 | grep -Eo '"kind":\\["[a-z-]+"' | sort -u || true)`,
    'sel=',
    `if grep -Eq '"(lib|rlib|dylib|cdylib|staticlib|proc-macro)"' <<<"$kinds"; then sel=--lib; fi`,
    `if grep -q '"bin"' <<<"$kinds"; then sel="$sel --bins"; fi`,
    'if ! build_graph $sel 2>/tmp/chainsmith-build-graph.err; then',
    '  cat /tmp/chainsmith-build-graph.err >&2',
    // The kinds are every member's: a workspace whose selected packages have no lib where a member has one (ripgrep's root is a bin) builds as before.
    "  grep -q 'no library targets found' /tmp/chainsmith-build-graph.err || exit 101",
    '  build_graph',
    'fi',
  ].join('\n');
/**
 * Where the crate depends on nothing at the image's commit, `cargo vendor` prints no source replacement
 * ("There is no dependency to vendor"): crates.io is the vendored directory all the same, so the crates a
 * PR's merge adds to it (its first dependency, merge-deps.ts) are found there after the change, not
 * looked for in a registry index the image does not have. In the image's setup rather than the fetch, so
 * an environment built before this line (its key is the same packages) is built again.
 */
const NOTHING_VENDORED = [
  `grep -qs '^\\[source.crates-io\\]' ${CARGO_HOME}/config.toml ||`,
  `  printf '[source.crates-io]\\nreplace-with = "vendored-sources"\\n\\n[source.vendored-sources]\\ndirectory = "%s"\\n' ${CARGO_HOME}/vendor >>${CARGO_HOME}/config.toml`,
].join('\n');
/**
 * The project's own lints capped at warnings: a crate that denies warnings (`#![deny(warnings)]`, or
 * under `cfg_attr(test, …)`) was warning-free on the compiler of its day, and a later rustc's new lints
 * (bare trait objects, unused macro rules) would fail its build where its code is sound; cargo already
 * caps every dependency's (at `allow`, which comes first and wins). Through `build.rustflags` in
 * CARGO_HOME's config, the lowest of cargo's config files, whose arrays cargo joins with a project's own
 * `build.rustflags` rather than replacing them.
 */
const LINTS_CAPPED = `printf '\\n[build]\\nrustflags = ["--cap-lints", "warn"]\\n' >>${CARGO_HOME}/config.toml`;
/** 2000-01-01T00:00:00Z, older than any build: the time every vendored file carries in the image. */
const VENDOR_MTIME = 946684800;

/**
 * Rust crates and workspaces with a Cargo.toml at the root. Dependencies are vendored on the host
 * (`cargo vendor`, through the host's cargo configuration) from the committed Cargo.lock, or from one
 * resolved for the image's rustc as of the stage's date; the image's cargo then builds from the
 * vendored directory alone.
 */
export async function detectRust(
  files: RepoFiles,
  list?: ListDirectory,
  opts: { merged?: RepoFiles; host?: HostRust; baseDate?: () => Promise<Date> } = {},
): Promise<RustRecipe | undefined> {
  if (!files.rootFiles.has('Cargo.toml')) return undefined;
  const manifest = (await files.read('Cargo.toml')) ?? '';
  const locked = files.rootFiles.has('Cargo.lock');
  // A member's declarations are resolved with the root's: a change to them moves the resolution date and the fetch.
  const members = await localManifests(files, manifest, list);
  // A git dependency the host cannot fetch is a stub the image's cargo fetches itself (git-stubs.ts).
  const texts = [manifest, ...(await Promise.all(members.map(async (m) => (await files.read(m)) ?? '')))];
  const gitDependencies = texts.some((text) => /\bgit\s*=\s*["']/.test(text));
  // What the base and the PR's merge ask of the compiler, the higher of each: one environment serves both.
  const asked = [manifest, (opts.merged && (await opts.merged.read('Cargo.toml'))) ?? ''];
  const declared = highestVersion(asked.map((m) => /^\s*rust-version\s*=\s*"([\d.]+)"/m.exec(m)?.[1]));
  // A release the repository pins its toolchain to (rustup's file) is one its developers built with.
  const pin = await pinnedRelease(files);
  const wants = highestVersion([declared, pin?.release]);
  const edition = highestVersion(asked.map((m) => /^\s*edition\s*=\s*"(\d+)"/m.exec(m)?.[1]));
  // A lock the PR's merge commits (where the base has none, or another) is the one its tests run with: it is
  // fetched as the merge's own (from the merge's checkout) and its crates vendored beside the base's.
  const mergeLocked = opts.merged?.rootFiles.has('Cargo.lock') ?? false;
  const lockVersion = Math.max(await lockFormat(files), await lockFormat(opts.merged));
  // The older rustc where it will do (the crates of older eras were written for compilers of their time), else
  // rustc-web, else the host's own stable rustc where it is newer still.
  const ladder: Rustc[] = [DEBIAN_RUSTC, DEBIAN_RUSTC_WEB];
  if (opts.host && compareVersions(opts.host.version, RUSTC_WEB_VERSION) > 0)
    ladder.push({ version: opts.host.version, prefix: opts.host.prefix, released: opts.host.released });
  // A crate that names no rust-version was written for the rustc of its day: the first one here no older.
  const day = !wants && opts.baseDate ? (await opts.baseDate()).toISOString().slice(0, 10) : undefined;
  const after = day ? ladder.findIndex((r) => day < daysAfter(r.released, RELEASE_DAYS)) : 0;
  const ofItsDay = after < 0 ? ladder.length - 1 : after;
  const needs = [
    ...(declared && compareVersions(declared, RUSTC_VERSION) > 0 ? [`the crate asks for rustc ${declared}`] : []),
    ...(pin && compareVersions(pin.release, RUSTC_VERSION) > 0 ? [`${pin.file} pins rustc ${pin.release}`] : []),
    ...(edition && Number(edition) > 2021 ? [`edition ${edition}`] : []),
    ...(lockVersion > 3 ? [`a Cargo.lock of format ${lockVersion}`] : []),
    ...(ofItsDay > 0 ? [`the crate names no rust-version and its base is of ${day}`] : []),
  ];
  const recipe = (rung: number, why: string[]): RustRecipe => {
    const rustc = ladder[rung].version;
    const prefix = ladder[rung].prefix;
    const notes = why.length ? [`${why.join(', ')}: ${chosen(ladder[rung])}`] : [];
    if (wants && compareVersions(wants, rustc) > 0 && why.length)
      notes.push(`the crate asks for rustc ${wants}; ${rustc} is the newest available`);
    const next = ladder[rung + 1];
    return {
      language: 'rust',
      origin: 'rust-cargo',
      toolchain: {
        image: rung === 0 ? 'rust' : 'rust-web',
        version: rustc,
        ...(prefix ? { prefix } : {}),
        ...(notes.length ? { note: notes.join('; ') } : {}),
      },
      manifests: ['Cargo.toml', ...members, ...(locked || mergeLocked ? ['Cargo.lock'] : [])],
      fetch: (ctx) => fetchCrates(ctx, existsSync(join(ctx.srcDir, 'Cargo.lock')), rustc),
      // A committed lock decides every version; without one they are resolved as of a date.
      ...(locked ? { pinned: true } : {}),
      withMerged: unionVendor,
      dependencyText: withoutOwnVersion,
      // A lock resolved for rustc-web is not the one resolved for 1.63 from the same manifests (all a cached fetch is keyed
      // on; a host rustc's version is in the key besides); from 3, a merge that resolved only undated as of its base's
      // date is resolved as of its own (dependencies.ts).
      fetchRevision: rung === 0 ? 3 : 4,
      setup: [
        `mkdir -p ${CARGO_HOME}`,
        // An earlier era's image (the seed) holds its own vendored crates: replaced, its target dir kept.
        `rm -rf ${CARGO_HOME}/vendor`,
        `cp -R ${DEPS_MOUNT}/vendor ${CARGO_HOME}/vendor`,
        // One fixed time on every vendored file, as in every era: a build script that watches its own
        // files (serde's does) does not rerun, nor its crate rebuild, because the copy is newer.
        `find ${CARGO_HOME}/vendor -exec touch -h -d @${VENDOR_MTIME} {} +`,
        `cp ${DEPS_MOUNT}/config.toml ${CARGO_HOME}/config.toml`,
        NOTHING_VENDORED,
        LINTS_CAPPED,
        MOLD_LINKER,
        ...(gitDependencies && !locked ? [FETCH_GIT_STUBS] : []),
        NIGHTLY_ONLY,
        // Proves the vendored crates suffice offline, and leaves them compiled in the image.
        buildGraph(gitDependencies && !locked),
      ],
      reuse: `the cargo target dir ${TARGET_DIR} (crates whose version, features and rustc are unchanged are not compiled again)`,
      env: {
        CARGO_HOME,
        CARGO_TARGET_DIR: TARGET_DIR,
        CARGO_NET_OFFLINE: 'true',
        CARGO_TERM_COLOR: 'never',
        ...LIMITED_DEBUGINFO,
      },
      sharedCache: INCREMENTAL_SHARED,
      // The host's rustc and cargo before Debian's in the image (images/host-rust).
      path: prefix ? [`${prefix}/bin`] : [],
      runner: 'cargo',
      // cargo's refusal of a rust-version above its rustc, in its form of 1.56-1.7x and its later one; its
      // refusal of a manifest's edition (any vendored crate's: cargo parses them all), in its wording for an
      // edition it has never heard of and for one it knows only as unstable; and
      // rustc's of a language or library feature this stable rustc does not have (E0658), which crates that
      // compile on a stable rustc at all use only where a later rustc made it stable (a rust-version that
      // says less than the code needs, or none). A root's `#![feature]` is E0554, which no rustc here takes.
      tooOld:
        /package `[^`]+` cannot be built because it requires rustc \S+ or newer|(?<=rustc \S+ is not supported by the following packages?:\n\s*)\S+ requires rustc \S+|error\[E0658\]: [^\n]+|this version of Cargo is older than the `\d+` edition|feature `edition\d+` is required/,
      unsupported: (output: string) => needsNightly(output, `${CARGO_HOME}/vendor`),
      // Versions chainsmith chose as of a date, not the project's committed lock.
      ...(locked ? {} : { stale: (output: string) => staleCrates(output, `${CARGO_HOME}/vendor`) }),
      // The crates resolved for this rustc may still need more (a dev-dependency whose every version does), or
      // the crate's own code (a feature made stable later): the next rustc then.
      ...(next ? { fallback: recipe(rung + 1, [`rustc ${rustc} is too old for the crate or its dependencies`]) } : {}),
    };
  };
  if (!needs.length) return recipe(0, []);
  // The first rustc that gives what the crate asks and is of its day, else the newest here.
  const fits = ladder.findIndex(
    (r, i) => i >= Math.max(1, ofItsDay) && (!wants || compareVersions(wants, r.version) <= 0),
  );
  return recipe(fits < 0 ? ladder.length - 1 : fits, needs);
}

/** The format version of a checkout's committed Cargo.lock (1 where it names none), 0 where it has none. */
async function lockFormat(files?: RepoFiles): Promise<number> {
  if (!files?.rootFiles.has('Cargo.lock')) return 0;
  return Number(/^version\s*=\s*(\d+)/m.exec((await files.read('Cargo.lock')) ?? '')?.[1] ?? 1);
}

/** A rustc here: Debian's (its image's) or the host's own (`prefix`, its sysroot, copied into the rust-web image), and its release day. */
interface Rustc {
  version: string;
  prefix?: string;
  released: string;
}
const DEBIAN_RUSTC: Rustc = { version: RUSTC_VERSION, released: '2022-08-11' };
const DEBIAN_RUSTC_WEB: Rustc = { version: RUSTC_WEB_VERSION, released: '2025-02-20' };

/** The day `days` after `day` ('YYYY-MM-DD'). */
function daysAfter(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Which rustc a recipe builds on instead of Debian's rustc, for its note. */
function chosen(r: Rustc): string {
  return r.prefix
    ? `the host's rustc ${r.version} rather than Debian bookworm's (rustc ${RUSTC_VERSION}, rustc-web ${RUSTC_WEB_VERSION})`
    : `Debian bookworm's rustc-web ${r.version} rather than its rustc ${RUSTC_VERSION}`;
}

/**
 * The stable release rustup's toolchain file at the root names as its channel (`channel = "1.88"` in
 * rust-toolchain.toml, or the legacy rust-toolchain file's one line, or its TOML), as major.minor;
 * undefined for a channel by name (stable, nightly, a dated nightly) or no file.
 */
async function pinnedRelease(files: RepoFiles): Promise<{ file: string; release: string } | undefined> {
  for (const file of ['rust-toolchain.toml', 'rust-toolchain']) {
    if (!files.rootFiles.has(file)) continue;
    const text = (await files.read(file)) ?? '';
    const channel = /^\s*channel\s*=\s*"([^"]*)"/m.exec(text)?.[1] ?? text.trim();
    const release = /^(\d+\.\d+)(?:\.\d+)?$/.exec(channel)?.[1];
    return release ? { file, release } : undefined;
  }
  return undefined;
}

/**
 * A manifest without the crate's own version: a release bumps it, and nothing cargo fetches depends on
 * it. In Cargo.toml the `version` key of [package] and [workspace.package]; in Cargo.lock the version
 * of each package without a source (the workspace's own). A dependency's version stays.
 */
export function withoutOwnVersion(path: string, text: string): string {
  if (/(^|\/)Cargo\.lock$/.test(path))
    return text
      .split(/^(?=\[\[package\]\]$)/m)
      .map((block) => (/^source = /m.test(block) ? block : block.replace(/^version = "[^"]*"\n/m, '')))
      .join('');
  let own = false;
  return text
    .split('\n')
    .filter((line) => {
      const table = /^\s*\[([^\]]+)\]\s*(#.*)?$/.exec(line);
      if (table) own = table[1].trim() === 'package' || table[1].trim() === 'workspace.package';
      return !(own && /^\s*version\s*=/.test(line));
    })
    .join('\n');
}

/**
 * Vendors the crates into depsDir/vendor with a cargo config pointing crates.io (and any git source)
 * at `CARGO_HOME/vendor` in the image. Works on a copy of the checkout: a lock file resolved here is
 * resolved for rustc 1.63 (each workspace package's rust-version set to it, so cargo's MSRV-aware
 * resolver prefers versions that build there) and, through cargo's `--publish-time`, from versions
 * published by `asOf`; it is recorded in depsDir/Cargo.lock. The image's cargo then resolves the same
 * versions offline from the vendored directory, which holds nothing else.
 */
export async function fetchCrates(ctx: FetchContext, locked: boolean, rustc = RUSTC_VERSION): Promise<Resolution> {
  const notes: string[] = [];
  // When the lock resolved is dated: never where it is committed, nor where it was resolved now.
  let resolvedAsOf: string | undefined;
  const scratch = await mkdtemp(join(tmpdir(), 'chainsmith-cargo-'));
  // --publish-time is unstable in cargo: RUSTC_BOOTSTRAP lets a stable cargo take it.
  const env: Record<string, string> = locked
    ? {}
    : { RUSTC_BOOTSTRAP: '1', CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS: 'fallback' };
  const resolver = new LockResolver({ cwd: scratch, signal: ctx.signal, env }, ctx.depsDir);
  try {
    await cp(ctx.srcDir, scratch, { recursive: true, filter: (src) => !['.git', 'target'].includes(basename(src)) });
    let unserved: Resolution['unserved'];
    if (locked) {
      notes.push('Cargo.lock as committed');
    } else {
      for (const manifest of await packageManifests(scratch)) {
        await writeFile(manifest, pinRustVersion(await readFile(manifest, 'utf8'), rustc));
      }
      let dated: ToolRun | undefined;
      let asOf = '';
      // A manifest may name a version published hours or days after its commit (bumped on release day):
      // the nearest later date that resolves, not today's crates, which need a newer rustc than the era's.
      for (const days of LATER_DAYS) {
        asOf = new Date(ctx.asOf.getTime() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
        ctx.log(`cargo: resolving for rustc ${rustc} with crates published by ${asOf}`);
        dated = await resolver.generate(asOf);
        if (dated.code === 0 || !/failed to select a version|no matching package/.test(dated.stderr)) break;
      }
      if (dated?.code === 0) {
        resolvedAsOf = ctx.asOf.toISOString();
        notes.push(
          `Cargo.lock resolved with crates published by ${asOf}${asOf.slice(0, 10) === ctx.asOf.toISOString().slice(0, 10) ? '' : ` (nothing published by ${ctx.asOf.toISOString().slice(0, 10)} satisfies the manifests)`}, preferring versions whose rust-version allows ${rustc}`,
        );
      } else {
        const undated = await resolver.generate();
        if (undated.code !== 0)
          throw toolFailure('cargo generate-lockfile', 'cargo', ['generate-lockfile'], undated, explainGit);
        notes.push(
          `Cargo.lock resolved now (this cargo cannot resolve as of a date: ${dated?.stderr.trim().split('\n').pop()}), preferring versions whose rust-version allows ${rustc}`,
        );
      }
      const finished = await resolver.finish(asOf);
      notes.push(...finished.notes);
      if (finished.unserved.length) unserved = finished.unserved;
      if (ctx.raise?.length) notes.push(...(await raiseCrates(ctx.raise, rustc, resolver.options)));
    }
    const run = resolver.options;
    ctx.log('cargo: vendoring the locked crates');
    const vendorDir = join(ctx.depsDir, 'vendor');
    // --respect-source-config: a crates.io mirror the host is configured for is the one used.
    let vendor = await runTool('cargo', ['vendor', '--locked', '--respect-source-config', vendorDir], run);
    if (vendor.code !== 0 && locked && /lock file .* needs to be updated|--locked/.test(vendor.stderr)) {
      // A committed lock behind its Cargo.toml: cargo would update it on any build; the image's cargo does the same offline.
      vendor = await mustRun(
        'cargo vendor',
        'cargo',
        ['vendor', '--respect-source-config', vendorDir],
        run,
        explainGit,
      );
      notes.push('the committed Cargo.lock was behind Cargo.toml; cargo updated it minimally');
    } else if (vendor.code !== 0) {
      await mustRun(
        'cargo vendor',
        'cargo',
        ['vendor', '--locked', '--respect-source-config', vendorDir],
        run,
        explainGit,
      );
    }
    // The stubs' repositories are fetched by the image's cargo (FETCH_GIT_STUBS), not vendored.
    const { config, copies } = withoutStubs(vendor.stdout, vendor.stderr, resolver.stubs);
    for (const copy of copies) await rm(copy, { recursive: true, force: true });
    // A crate that depends on nothing leaves no vendor directory; the image copies one, empty or not.
    await mkdir(vendorDir, { recursive: true });
    const beyond = await cratesBeyond(vendorDir, rustc, await cratesForThisPlatform(run));
    if (beyond.length) {
      throw new ToolchainTooOld(
        `the crates ${locked ? 'the committed Cargo.lock pins' : `resolved for rustc ${rustc}`} need a newer one: ${beyond.slice(0, 5).join(', ')}${beyond.length > 5 ? ` and ${beyond.length - 5} more` : ''}`,
      );
    }
    await writeFile(join(ctx.depsDir, 'config.toml'), imageCargoConfig(config, vendorDir, `${CARGO_HOME}/vendor`));
    const lock = await readFile(join(scratch, 'Cargo.lock'), 'utf8');
    await writeFile(join(ctx.depsDir, 'Cargo.lock'), lock);
    const lockVersion = Number(/^version\s*=\s*(\d+)/m.exec(lock)?.[1] ?? 1);
    if (lockVersion > 3 && rustc === RUSTC_VERSION)
      notes.push(`Cargo.lock is format version ${lockVersion}; cargo ${RUSTC_VERSION} reads versions up to 3`);
    return {
      ecosystem: 'crates',
      tool: await toolVersion('cargo'),
      lock: locked ? 'committed' : 'resolved',
      ...(resolvedAsOf ? { asOf: resolvedAsOf } : {}),
      packages: lockedPackages(lock),
      notes,
      ...(unserved ? { unserved } : {}),
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await resolver.close();
  }
}

/** The first cargo that reads each edition: an older one refuses the manifest that names it. */
const EDITION_SINCE: Record<string, string> = { '2018': '1.31', '2021': '1.56', '2024': '1.85' };

/**
 * The vendored crates whose rust-version is above `rustc` ('serde_spanned 0.6.7 (rust-version 1.65)'):
 * cargo's MSRV-aware resolver falls back to them where every version a dependent allows needs more.
 * Only those `built` holds ('name version'), where it is known: a crate of another platform's
 * dependencies is vendored (the lock holds every platform's) but never compiled here. An edition
 * this rustc's cargo cannot read counts wherever the crate is for: cargo parses every vendored
 * manifest before it builds anything (a wasm-only wit-bindgen of edition 2024 stops cargo 1.63).
 */
async function cratesBeyond(vendorDir: string, rustc: string, built?: Set<string>): Promise<string[]> {
  const found: string[] = [];
  for (const dir of (await readdir(vendorDir)).sort()) {
    const manifest = await readFile(join(vendorDir, dir, 'Cargo.toml'), 'utf8').catch(() => '');
    const wants = /^rust-version\s*=\s*"([\d.]+)"/m.exec(manifest)?.[1];
    const edition = /^edition\s*=\s*"(\d+)"/m.exec(manifest)?.[1];
    const version = /^version\s*=\s*"([^"]+)"/m.exec(manifest)?.[1];
    const name = /^name\s*=\s*"([^"]+)"/m.exec(manifest)?.[1] ?? dir;
    const readFrom = edition ? EDITION_SINCE[edition] : undefined;
    if (readFrom && compareVersions(readFrom, rustc) > 0) {
      found.push(`${name} ${version ?? '?'} (edition ${edition}, which cargo reads from ${readFrom})`);
      continue;
    }
    if (built && version !== undefined && !built.has(`${name} ${version}`)) continue;
    if (wants && compareVersions(wants, rustc) > 0) found.push(`${name} ${version ?? '?'} (rust-version ${wants})`);
  }
  return found;
}

/**
 * The crates ('name version') cargo would compile for this host's platform (the image's), every feature
 * of the workspace on and dev-dependencies in (`cargo metadata --filter-platform`: indexmap 2.14.1's
 * lock holds getrandom's WASI crates, which need rustc 1.87 and are no Linux build's). Undefined where
 * cargo cannot tell.
 */
async function cratesForThisPlatform(run: { cwd: string; signal?: AbortSignal }): Promise<Set<string> | undefined> {
  const host = /^host: (\S+)/m.exec((await runTool('cargo', ['-vV'], run)).stdout)?.[1];
  if (!host) return undefined;
  const meta = await runTool(
    'cargo',
    ['metadata', '--all-features', '--format-version', '1', '--filter-platform', host],
    run,
  );
  if (meta.code !== 0) return undefined;
  try {
    const { packages } = JSON.parse(meta.stdout) as { packages: Array<{ name: string; version: string }> };
    return new Set(packages.map((p) => `${p.name} ${p.version}`));
  } catch {
    return undefined;
  }
}

/** The Cargo.toml files of the copy that declare a package (the root's and its workspace members'). */
async function packageManifests(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 4 && !['.git', 'target', 'node_modules'].includes(entry.name))
        await walk(path, depth + 1);
      else if (entry.name === 'Cargo.toml' && /^\[package\]\s*$/m.test(await readFile(path, 'utf8'))) found.push(path);
    }
  };
  await walk(root, 0);
  return found;
}

/** The manifest with its [package] rust-version set to `version` (replaced, inherited or added). */
export function pinRustVersion(manifest: string, version: string): string {
  const lines = manifest.split('\n');
  const start = lines.findIndex((l) => /^\[package\]\s*$/.test(l));
  if (start < 0) return manifest;
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  const at = lines.findIndex((l, i) => i > start && i < end && /^\s*rust-version(\.workspace)?\s*=/.test(l));
  if (at >= 0) lines[at] = `rust-version = "${version}"`;
  else lines.splice(start + 1, 0, `rust-version = "${version}"`);
  return lines.join('\n');
}

/** cargo vendor's own source replacement (crates.io and git sources), pointed at the image's copy, offline. */
export function imageCargoConfig(vendorConfig: string, hostDir: string, imageDir: string): string {
  const replaced = vendorConfig
    .split('\n')
    .filter((l) => !l.startsWith('#') && !/^To use vendored sources/.test(l))
    .join('\n')
    .replaceAll(JSON.stringify(hostDir), JSON.stringify(imageDir))
    .trim();
  return `${replaced}\n\n[net]\noffline = true\n`;
}
