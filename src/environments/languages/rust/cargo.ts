import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { worse } from '../../runners/shell';
import { shellQuote } from '../../../process/shell-quote';
import { moduleDeclarations } from './module-gate';

const CARGO_TEST = 'cargo test --offline --no-fail-fast';

/**
 * `cargo test` prints one line per test ("test value::tests::x ... ok") under a line naming the test
 * binary ("Running tests/test.rs (target/debug/deps/test-0a1b2c3d4e5f6a7b)"). Ids are the binary's
 * target name and the test's path, `test::test_integer128_to_value`; doc tests are
 * `CRATE-doc::src/de.rs - de::from_reader`, without their line number, which moves with every edit
 * above it. A test target that does not compile prints no test lines: its tests count as not passing.
 */
const RUNNING = /^\s*Running (?:.* )?\(?(\S+?)\)?$/;
const DOC_TESTS = /^\s*Doc-tests (\S+)$/;
const TEST_LINE = /^test (.+?) \.\.\. (ok|FAILED|ignored\b.*|bench:.*)$/;

export function parseCargoTest(output: string): TestCase[] | undefined {
  const cases = new Map<string, TestCase['outcome']>();
  let target = '';
  for (const raw of output.split('\n')) {
    const line = raw.trimEnd();
    const running = RUNNING.exec(line);
    if (running) {
      target = targetName(running[1]);
      continue;
    }
    const doc = DOC_TESTS.exec(line);
    if (doc) {
      target = `${doc[1]}-doc`;
      continue;
    }
    const test = TEST_LINE.exec(line);
    if (!test || !target) continue;
    // `src/lib.rs - f (line 12) - compile fail`: the mode after the line number, so the mode goes first.
    const name = test[1].replace(/ - compile( fail)?$/, '').replace(/ \(line \d+\)$/, '');
    const outcome: TestCase['outcome'] =
      test[2] === 'FAILED' ? 'failed' : test[2].startsWith('ignored') ? 'skipped' : 'passed';
    const id = `${target}::${name}`;
    cases.set(id, worse(cases.get(id), outcome));
  }
  return cases.size ? [...cases].map(([id, outcome]) => ({ id, outcome })) : undefined;
}

/** `target/debug/deps/test-0a1b2c3d4e5f6a7b` → `test`. */
function targetName(binary: string): string {
  const base = binary.split('/').pop() ?? binary;
  return base.replace(/-[0-9a-f]{16}(\.exe)?$/, '');
}

/**
 * Integration-test targets for the PR's test files: `tests/foo.rs` and `tests/foo/bar.rs` are the
 * target `foo` (the second where tests/foo.rs or tests/foo/main.rs includes it). Anything else (a unit
 * test in src/, a fixture, a trybuild .stderr file) needs the whole suite.
 */
export function cargoTestTargets(files: string[]): string[] | undefined {
  const targets = new Set<string>();
  for (const file of files) {
    const m = /^tests\/([^/]+?)(?:\.rs|\/.+\.rs)$/.exec(file);
    if (!m) return undefined;
    targets.add(m[1]);
  }
  return targets.size ? [...targets].sort() : undefined;
}

/**
 * Shell that reads the root package as cargo does (`cargo read-manifest`, however its Cargo.toml writes
 * it: dotted keys, inline or own tables, inherited fields): `fmap`, the JSON object of its features,
 * [features] and each optional dependency's implicit one (hex's `#![cfg(feature = "serde")]` tests),
 * none where `dep:` turns it off; `root` and `ed`, its lib target's root file and edition. All empty
 * where the root is a virtual workspace. A JSON array never holds `"name":`, so `"$f":[` finds a feature.
 * The package's own `features` comes first: a [package.metadata.*.features] table prints another after it.
 */
const ROOT_PACKAGE_JSON = [
  'pkg=$(cargo read-manifest 2>/dev/null || true)',
  `fmap=$(grep -o '"features":{[^{}]*}' <<<"$pkg" | head -n 1 || true)`,
  `lib=$(grep -Eo '\\{"kind":\\[[^]]*"(lib|rlib|dylib|cdylib|staticlib|proc-macro)"[^{}]*\\}' <<<"$pkg" | head -n 1 || true)`,
  `root=$(sed -n 's/.*"src_path":"\\([^"]*\\)".*/\\1/p' <<<"$lib"); ed=$(sed -n 's/.*"edition":"\\([0-9]*\\)".*/\\1/p' <<<"$lib")`,
].join('\n');

/**
 * Shell function whose status says turning on feature `$1` makes the crate's root turn on a nightly
 * `#![feature]` (`#![cfg_attr(feature = "x", feature(…))]`, smallvec's may_dangle; under `all(…)`, or
 * through a feature `$1` enables, as well): rustc itself is asked, on the root alone with the features
 * `$1` turns on as cfgs (it reports E0554 before it needs the crate's dependencies), so a condition is
 * read as the build reads it. Only where the root names `feature(` at all, for rustc's time.
 */
const NIGHTLY_UNDER = [
  'nightly_under() {',
  `  [ -n "$root" ] && grep -Eqs 'feature *\\(' "$root" || return 1`,
  '  local on=("$1") i=0 h cfg=()',
  '  while [ "$i" -lt "${#on[@]}" ]; do',
  `    for h in $(sed -n "s/.*\\"\${on[$i]}\\":\\[\\([^]]*\\)\\].*/\\1/p" <<<"$fmap" | tr , '\\n' | tr -d '"' | grep -v '[:/]'); do`,
  '      [[ " ${on[*]} " == *" $h "* ]] || on+=("$h")',
  '    done',
  '    i=$((i + 1))',
  '  done',
  '  for h in "${on[@]}"; do cfg+=(--cfg "feature=\\"$h\\""); done',
  '  case "$(rustc --edition "${ed:-2015}" --crate-type lib --emit metadata -o /tmp/chainsmith-nightly-probe.rmeta "${cfg[@]}" "$root" 2>&1)" in',
  '    *E0554*) return 0 ;;',
  '  esac',
  '  return 1',
  '}',
].join('\n');

/**
 * Shell that sets `features` and `both` for the crate features the test files gate tests on
 * (`cfg(feature = "x")`) and the root package declares at the time of the run (in [features], or as
 * an optional dependency), comma-separated: a
 * test of an optional feature (serde_json's raw_value) is otherwise compiled out, before and after the
 * change alike. `features` holds those named only positively; `both` those also named under `not(…)`
 * item by item (serde_json's tests/test.rs has arbitrary_precision variants of the default's
 * assertions, inside one test): the tests run once without them and once with them, so a change to
 * either variant is seen. A feature a file is gated off by as a whole (`#![cfg(not(feature = "x"))]`,
 * serde_json's preserve_order) stays off: turning it on would drop the tests written for the default.
 * So does a feature under which the crate's root turns on a nightly `#![feature]` (NIGHTLY_UNDER): the
 * image's stable rustc refuses the whole crate with it (E0554).
 */
export function gatedFeatures(files: string[]): string {
  const rs = files.filter((f) => f.endsWith('.rs'));
  if (!rs.length) return '';
  const count = (pattern: string) => `$(tests_text | grep -o "${pattern}" | wc -l)`;
  const names = `tests_text | grep -o 'feature *= *"[A-Za-z0-9_-]*"' | sed 's/.*"\\(.*\\)"/\\1/' | sort -u`;
  const declared = `grep -q "\\"$f\\":\\[" <<<"$fmap"`;
  const wholeFileOff = `tests_text | grep -q "#!\\[cfg(not( *feature *= *\\"$f\\""`;
  return [
    testsText(rs),
    ROOT_PACKAGE_JSON,
    NIGHTLY_UNDER,
    'features=; both=',
    `for f in $(${names}); do`,
    `  ${declared} || continue`,
    '  nightly_under "$f" && continue',
    `  all=${count('feature *= *\\"$f\\"')}; off=${count('not( *feature *= *\\"$f\\"')}`,
    '  if [ "$off" -eq 0 ]; then features=${features:+$features,}$f',
    `  elif [ "$all" -gt "$off" ] && ! ${wholeFileOff}; then both=\${both:+$both,}$f; fi`,
    'done',
    '',
  ].join('\n');
}

/**
 * Shell that sets `ws`, where the root Cargo.toml declares a workspace, to the packages holding the PR's
 * Rust test files (`-p NAME`, each file's nearest Cargo.toml as cargo reads it): a root that is also a
 * package tests only itself under plain `cargo test`, so a PR's tests in a member crate
 * (crates/foo/tests/x.rs) would run neither before nor after its change. Only those packages, not
 * --workspace: a build of another member that fails (a build script that panics on a later rustc, a crate
 * that needs nightly) stops cargo before any test runs, and is not the PR's business. --workspace where a
 * file's package has no name (the root of a virtual workspace).
 */
function workspacePackages(files: string[]): string {
  const rs = files.filter((f) => f.endsWith('.rs')).map(shellQuote);
  return [
    "ws=; if grep -q '^\\[workspace\\]' Cargo.toml 2>/dev/null; then",
    `  for f in ${rs.join(' ')}; do`,
    '    d=$(dirname "$f"); while [ "$d" != . ] && [ ! -f "$d/Cargo.toml" ]; do d=$(dirname "$d"); done',
    `    p=$(cargo read-manifest --manifest-path "$d/Cargo.toml" 2>/dev/null | grep -o '^{"name":"[^"]*"' | cut -d'"' -f4 || true)`,
    '    if [ -z "$p" ]; then ws=--workspace; break; fi',
    '    [[ " $ws " == *" -p $p "* ]] || ws="$ws -p $p"',
    '  done',
    'fi',
    '',
  ].join('\n');
}
/** Where the root package's own tests live: a Rust test file elsewhere is a member crate's. */
const ROOT_PACKAGE = /^(src|tests|benches|examples)\//;

/**
 * The PR's tests never include doc tests: they live in the code's doc comments, the gold change's side,
 * so a doc test a PR adds is one no agent's tree holds, and its tests are the test targets and the unit
 * tests (`--tests`). Doc tests are also compiled one by one (serde_json's hundred took 39 of a whole
 * suite's 48 CPU-s).
 */
const NO_DOC_TESTS = '--tests';

/** A file of tests alone (under a tests/ directory, or a module's tests.rs), not a code file with unit tests in it. */
function testsAlone(file: string): boolean {
  return /(^|\/)tests?\//.test(file) || /(^|\/)tests?\.rs$/.test(file);
}

/**
 * Shell function `tests_text` printing the text of the PR's tests that is read for the features they are
 * gated on: a file of tests alone whole; a code file whose unit tests the PR changes (inline-tests.ts)
 * from its first test-only attribute on (`#[cfg(test)]`, `#[cfg(all(test, …))]`), where its test module
 * sits, as rustfmt and most crates keep it, at the end: a unit test under `#[cfg(feature = "x")]`
 * (textwrap's hyphenation tests in src/lib.rs) runs with the feature on, where it was compiled out before
 * and after the change alike; the code's own `cfg(feature)`s above it would turn on features its tests
 * never asked for. Its modules' declarations count too, with their attributes (module-gate.ts): a test
 * module in src/serde.rs is compiled only where `#[cfg(feature = "serde")] mod serde;` in src/lib.rs is on.
 */
function testsText(files: string[]): string {
  const alone = files.filter(testsAlone).map(shellQuote);
  const code = files.filter((f) => !testsAlone(f)).map(shellQuote);
  const whole = alone.length ? `cat ${alone.join(' ')} 2>/dev/null; ` : '';
  const tail = code.length
    ? `for f in ${code.join(' ')}; do sed -En '/#\\[cfg\\((.*[(, ])?test[),]/,$p' "$f" 2>/dev/null; done; `
    : '';
  const declared = files
    .filter((f) => !testsAlone(f))
    .map(moduleDeclarations)
    .filter(Boolean)
    .map((lines) => `${lines}; `)
    .join('');
  return `tests_text() { ${whole}${tail}${declared}true; }`;
}

/**
 * Shell that builds the crate's examples where the run is narrowed (`$sel`: some test targets, or
 * `--tests`, which builds none) and a PR test file names the examples directory: a test that runs an
 * example's binary (once_cell's reentrant_init, `target/debug/examples/…`) finds it, as under a plain
 * `cargo test`, which builds the examples. Not otherwise, for the examples' compile time; a build that
 * fails leaves the tests to say so.
 */
function examplesFirst(files: string[]): string {
  const rs = files.filter((f) => f.endsWith('.rs')).map(shellQuote);
  if (!rs.length) return '';
  return `if [ -n "$sel" ] && grep -qsw examples ${rs.join(' ')}; then cargo build --offline --examples \${features:+--features "$features"} >/dev/null 2>&1 || true; fi\n`;
}

export const cargoRunner: TestRunner<'cargo'> = {
  name: 'cargo',
  command(files, override) {
    const plain = override ?? CARGO_TEST;
    if (!/^cargo test\b/.test(plain)) return `${plain} 2>&1`;
    const features = gatedFeatures(files);
    const targets = cargoTestTargets(files)?.filter((t) => /^[\w-]+$/.test(t));
    // A configured command chooses its own targets (`cargo test --doc`, `cargo test -- --test-threads=1`).
    const rest = files.length && !override ? NO_DOC_TESTS : '';
    // The whole suite runs every member's tests where there are members (a configured command is left as it is).
    const inMember = files.some((f) => f.endsWith('.rs') && !ROOT_PACKAGE.test(f));
    const workspace = override || !inMember ? 'ws=\n' : workspacePackages(files);
    if (!features && !targets?.length && !rest) return `${workspace}${plain} $ws 2>&1`;
    // A target name that is not a file of its own (a [[test]] with another path) would stop cargo: run all then.
    const select = targets?.length
      ? `sel=${rest}; if ${targets.map((t) => `{ [ -f tests/${t}.rs ] || [ -f tests/${t}/main.rs ]; }`).join(' && ')}; then sel='${targets.map((t) => `--test ${t}`).join(' ')}'; fi\n`
      : `sel=${rest}\n`;
    // The line that runs the tests comes first, as a function the lines choosing its arguments then call: a
    // stage's reason keeps the head of its command (REASON_LIMITS.command), which then names the tests.
    // Arguments go before a configured command's `--`, which passes what follows it to the test binaries.
    const [head, ...after] = plain.split(' -- ');
    const cargoTest = `cargo_test() { ${head} "$@"${after.length ? ` -- ${after.join(' -- ')}` : ''} 2>&1; }\n`;
    // The packages only for every test target without features: features and targets name the root package's.
    const wholeSuite = `[ "$sel" = ${NO_DOC_TESTS} ]`;
    const examples = examplesFirst(files.filter(testsAlone));
    if (!features) return `${cargoTest}${select}${examples}${workspace}${wholeSuite} || ws=\ncargo_test $sel $ws`;
    return [
      `${cargoTest}${features}${select}${examples}${workspace}[ -z "$features$both" ] && ${wholeSuite} || ws=`,
      'cargo_test ${features:+--features "$features"} $sel $ws; status=$?',
      'if [ -n "$both" ]; then echo "chainsmith: the tests again with the features $both"; cargo_test --features "${features:+$features,}$both" $sel || status=$?; fi',
      'exit $status',
    ].join('\n');
  },
  parse: parseCargoTest,
  toolchainMismatch: rustcRefused,
};

/**
 * cargo's refusal of a package whose `rust-version` is above the environment's rustc, in either of its
 * forms: "package `x v1.0.0` cannot be built because it requires rustc 1.95 or newer" (cargo 1.56 to
 * 1.7x) and "rustc 1.85.0 is not supported by the following packages:" then "  x@1.0.0 requires rustc
 * 1.95" (later). A change that raises it past every toolchain here (a release moving to a newer MSRV)
 * leaves tests no change could run on this host, whatever they check.
 */
const RUSTC_REFUSED = [
  /package `([^`]+)` cannot be built because it requires (rustc \S+) or newer/,
  /^error: rustc \S+ is not supported by the following packages?:\n\s*(\S+) requires (rustc \S+)/m,
];
function rustcRefused(output: string): string | undefined {
  for (const form of RUSTC_REFUSED) {
    const m = form.exec(output);
    if (m) return `cargo: ${m[1]} requires ${m[2]}`;
  }
  return undefined;
}
