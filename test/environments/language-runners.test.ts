import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cargoRunner, cargoTestTargets } from '../../src/environments/languages/rust/cargo';
import { goRunner, goTestPackages } from '../../src/environments/languages/go/go-test';
import { mavenRunner, mavenTestClasses } from '../../src/environments/languages/java/maven';
import { REASON_LIMITS, type TestCase } from '../../src/schemas';

/** Fixtures are trimmed real output: serde_json PR #982, cobra PR #2356 and jsoup PR #2570 at their bases. */
const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const outcomes = (cases: TestCase[] | undefined) => Object.fromEntries((cases ?? []).map((c) => [c.id, c.outcome]));

/** A cargo that prints its arguments, but reads the manifest as cargo does (the runner asks it for the crate's features). */
const READ_BY_CARGO = 'cargo() { if [ "$1" = read-manifest ]; then command cargo "$@"; else echo "$@"; fi; }';

describe('cargo runner', () => {
  it('reads cargo test lines as TARGET::path ids, the failing test failed and the others passed', () => {
    const got = outcomes(cargoRunner.parse(fixture('cargo-test-pr982-before.txt')));
    expect(Object.keys(got)).toHaveLength(71);
    expect(got['test::test_integer128_to_value']).toBe('failed');
    expect(got['test::test_borrow']).toBe('passed');
  });

  it('names unit, integration and doc tests by their target; doc tests lose their line number', () => {
    const got = outcomes(cargoRunner.parse(fixture('cargo-test-full-trimmed.txt')));
    expect(got['compiletest::ui']).toBe('skipped');
    expect(got['lexical::algorithm::double_fast_path_test']).toBe('passed');
    const doc = Object.keys(got).filter((id) => id.startsWith('serde_json-doc::'));
    expect(doc.length).toBeGreaterThan(0);
    expect(doc.every((id) => !/\(line \d+\)/.test(id))).toBe(true);
    // A compile_fail doc test prints its mode after the line number: moved by an edit above it, it keeps its id.
    const moved = (line: number) =>
      cargoRunner.parse(`   Doc-tests doc_ids\ntest src/lib.rs - answer (line ${line}) - compile fail ... ok\n`);
    expect(moved(3)).toEqual([{ id: 'doc_ids-doc::src/lib.rs - answer', outcome: 'passed' }]);
    expect(moved(7)).toEqual(moved(3));
  });

  it('reports nothing for a run that did not compile', () => {
    const output = [
      '   Compiling serde_json v1.0.92 (/work)',
      'error[E0599]: no method named `into_deserializer` found',
      'error: could not compile `serde_json` due to previous error',
    ].join('\n');
    expect(cargoRunner.parse(output)).toBeUndefined();
  });

  it('narrows to the integration-test targets of the PR files, and to everything otherwise', () => {
    expect(cargoTestTargets(['tests/test.rs', 'tests/regression/issue953.rs'])).toEqual(['regression', 'test']);
    expect(cargoTestTargets(['tests/test.rs', 'src/de.rs'])).toBeUndefined();
    expect(cargoTestTargets(['tests/ui/missing_colon.stderr'])).toBeUndefined();
    expect(cargoRunner.command(['tests/test.rs'])).toContain('--test test');
    expect(cargoRunner.command(['tests/test.rs'])).toContain('[ -f tests/test.rs ]');
    // A stage's reason keeps the head of the command: it names the tests' run, whatever chooses its arguments.
    for (const files of [['tests/test.rs'], ['tests/ui/x.stderr'], ['src/lib.rs', 'tests/a.rs', 'tests/b.rs']])
      expect(cargoRunner.command(files).slice(0, REASON_LIMITS.command)).toContain(
        'cargo test --offline --no-fail-fast',
      );
    // Every test target, never the doc tests (code, the gold change's side), and the packages of the test
    // files where the root declares a workspace (run with a cargo that prints its arguments, and reads a
    // manifest's package name from its directory, the root's being `root`).
    const dir = mkdtempSync(join(tmpdir(), 'chainsmith-workspace-'));
    const readManifest = `if [ "$1" = read-manifest ]; then n=$(basename "$(dirname "$3")"); echo "{\\"name\\":\\"\${n/#./root}\\"}"; return; fi`;
    const args = (files: string[]) =>
      execFileSync('bash', ['-c', `cargo() { ${readManifest}; echo "$@"; }; ${cargoRunner.command(files)}`], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
    writeFileSync(join(dir, 'Cargo.toml'), '[package]\nname = "root"\n');
    expect(args(['src/lib.rs'])).toBe('test --offline --no-fail-fast --tests');
    writeFileSync(join(dir, 'Cargo.toml'), '[package]\nname = "root"\n\n[workspace]\nmembers = ["crates/*"]\n');
    mkdirSync(join(dir, 'crates/foo'), { recursive: true });
    writeFileSync(join(dir, 'crates/foo/Cargo.toml'), '[package]\nname = "foo"\n');
    expect(args(['crates/foo/tests/x.rs'])).toBe('test --offline --no-fail-fast --tests -p foo');
    expect(args(['crates/foo/src/lib.rs'])).toBe('test --offline --no-fail-fast --tests -p foo');
    // A PR whose tests are the root package's own does not build every member.
    expect(args(['src/lib.rs'])).toBe('test --offline --no-fail-fast --tests');
    expect(args(['tests/test.rs', 'crates/foo/tests/x.rs'])).toBe(
      'test --offline --no-fail-fast --tests -p root -p foo',
    );
    // A configured command chooses its own targets, and what follows its `--` stays last (the test binaries' own).
    const configured = (files: string[], command: string) =>
      execFileSync('bash', ['-c', `cargo() { echo "$@"; }; ${cargoRunner.command(files, command)}`], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
    expect(configured(['src/lib.rs'], 'cargo test -- --test-threads=1')).toBe('test -- --test-threads=1');
    expect(configured(['tests/a.rs'], 'cargo test -- --test-threads=1')).toBe('test -- --test-threads=1');
    mkdirSync(join(dir, 'tests'), { recursive: true });
    writeFileSync(join(dir, 'tests/a.rs'), '// runs target/debug/examples/demo\n');
    expect(configured(['tests/a.rs'], 'cargo test -- --test-threads=1')).toBe('test --test a -- --test-threads=1');
    // Narrowed, cargo builds no examples: a test file that names them has them built first.
    expect(cargoRunner.command(['tests/a.rs'])).toContain('cargo build --offline --examples');
    expect(cargoRunner.command(['src/lib.rs'])).not.toContain('--examples');
    expect(cargoRunner.command([], 'cargo test -p root')).toBe('ws=\ncargo test -p root $ws 2>&1');
    // Test files under tests/ that name no target of their own: every test target, no doc tests; so too
    // where a target they name is no file of its own.
    expect(args(['tests/ui/missing_colon.stderr'])).toBe('test --offline --no-fail-fast --tests');
    expect(args(['tests/test.rs'])).toBe('test --offline --no-fail-fast --tests');
  });

  it('enables the crate features the test files gate tests on, where Cargo.toml declares them; runs again with those also named under not(…) item by item', () => {
    // serde_json #830's test is `#[cfg(feature = "raw_value")]`: compiled out under the default features.
    const dir = mkdtempSync(join(tmpdir(), 'chainsmith-features-'));
    try {
      mkdirSync(join(dir, 'tests'));
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src/lib.rs'), '');
      writeFileSync(
        join(dir, 'Cargo.toml'),
        '[package]\nname = "j"\n\n[features]\ndefault = ["std"]\nstd = []\n"raw_value" = []\n\n[dependencies]\nserde = "1"\n',
      );
      writeFileSync(
        join(dir, 'tests/test.rs'),
        '#[cfg(feature = "raw_value")]\n#[test]\nfn raw() {}\n#[cfg(not(feature = "std"))]\nfn a() {}\n#[cfg(feature = "nightly")]\nfn b() {}\n',
      );
      // The command as the sandbox runs it, with a cargo that prints its arguments (the crate's features read by the real one).
      const run = (files: string[]) =>
        execFileSync('bash', ['-c', `${READ_BY_CARGO}; ${cargoRunner.command(files)}`], {
          cwd: dir,
          encoding: 'utf8',
        }).trim();
      // std is also named under not(…): it stays as the default has it; nightly is not a feature of the crate.
      expect(run(['tests/test.rs'])).toBe('test --offline --no-fail-fast --features raw_value --test test');
      // serde_json #786 changed the arbitrary_precision variant inside a test that also has the default's: both run.
      writeFileSync(
        join(dir, 'Cargo.toml'),
        '[package]\nname = "j"\n\n[features]\nraw_value = []\narbitrary_precision = []\npreserve_order = []\n',
      );
      writeFileSync(
        join(dir, 'tests/test.rs'),
        '#[test]\nfn n() {\n    #[cfg(not(feature = "arbitrary_precision"))]\n    a();\n    #[cfg(feature = "arbitrary_precision")]\n    b();\n}\n',
      );
      writeFileSync(
        join(dir, 'tests/debug.rs'),
        '#![cfg(not(feature = "preserve_order"))]\n#[cfg(feature = "preserve_order")]\nfn c() {}\n#[cfg(feature = "raw_value")]\nfn d() {}\n',
      );
      expect(run(['tests/test.rs']).split('\n')).toEqual([
        'test --offline --no-fail-fast --test test',
        'chainsmith: the tests again with the features arbitrary_precision',
        'test --offline --no-fail-fast --features arbitrary_precision --test test',
      ]);
      // A file gated off by a feature as a whole keeps it off in every run.
      expect(run(['tests/debug.rs', 'tests/test.rs']).split('\n')).toEqual([
        'test --offline --no-fail-fast --features raw_value --test debug --test test',
        'chainsmith: the tests again with the features arbitrary_precision',
        'test --offline --no-fail-fast --features raw_value,arbitrary_precision --test debug --test test',
      ]);
      writeFileSync(join(dir, 'tests/test.rs'), '#[test]\nfn plain() {}\n');
      expect(run(['tests/test.rs'])).toBe('test --offline --no-fail-fast --test test');
      // A code file whose unit tests the PR changes is read from its test module on: its code's every cfg(feature) would count.
      writeFileSync(join(dir, 'src/lib.rs'), '#[cfg(feature = "raw_value")]\npub fn raw() {}\n');
      expect(run(['src/lib.rs'])).toBe('test --offline --no-fail-fast --tests');
      // textwrap #162's test of the optional hyphenation, in src/lib.rs's test module, was compiled out before and after.
      writeFileSync(
        join(dir, 'src/lib.rs'),
        '#[cfg(feature = "raw_value")]\npub fn raw() {}\n\n#[cfg(test)]\nmod tests {\n    #[cfg(feature = "preserve_order")]\n    #[test]\n    fn ordered() {}\n}\n',
      );
      expect(run(['src/lib.rs'])).toBe('test --offline --no-fail-fast --features preserve_order --tests');
      expect(cargoRunner.command(['tests/test.rs'], 'make test')).toBe('make test 2>&1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('go runner', () => {
  it('reads the compact report: IMPORT/PATH/Test ids, subtests included', () => {
    const got = outcomes(goRunner.parse(fixture('go-test-pr2356-before.txt')));
    expect(got['github.com/spf13/cobra/TestCompletionDoesNotMutateOsArgs']).toBe('failed');
    expect(got['github.com/spf13/cobra/TestCalledAs/find/conflict']).toBe('passed');
    expect(Object.values(got).filter((o) => o === 'passed').length).toBe(26);
  });

  it('reads raw go test -json events too, ignoring package-level ones', () => {
    const got = outcomes(goRunner.parse(fixture('go-test-json-pr2356-after.jsonl')));
    expect(got['github.com/spf13/cobra/TestCompletionDoesNotMutateOsArgs']).toBe('passed');
    expect(got['github.com/spf13/cobra/TestCalledAs/find/part-alias']).toBe('passed');
    expect(got['github.com/spf13/cobra']).toBeUndefined();
  });

  it('keeps names that JSON escapes, and reports nothing for a package that did not build', () => {
    const report = ['go-test-package: example.com/m', 'pass TestQuote/say_\\"hi\\"'].join('\n');
    expect(outcomes(goRunner.parse(report))).toEqual({ 'example.com/m/TestQuote/say_"hi"': 'passed' });
    const build =
      '{"Action":"fail","Package":"example.com/m","Elapsed":0,"FailedBuild":"example.com/m [example.com/m.test]"}';
    expect(goRunner.parse(build)).toBeUndefined();
  });

  it('tests the packages of the PR test files, a testdata file its parent package', () => {
    expect(goTestPackages(['completions_test.go', 'doc/man_docs_test.go', 'doc/testdata/x.golden'])).toEqual([
      '.',
      './doc',
    ]);
    expect(goTestPackages(['completions_test.go', 'README.md'])).toBeUndefined();
    // The command's first line names the tests (a stage's reason keeps the command's head).
    expect(goRunner.command(['doc/man_docs_test.go'])).toMatch(
      /^go_test\(\) \{ go test -json -count=1 -vet=off "\$\{test_binary_exec\[@\]\}" \.\/doc; \}\n/,
    );
    expect(goRunner.command([]).split('\n')[0]).toBe(
      'go_test() { go test -json -count=1 -vet=off "${test_binary_exec[@]}" ./...; }',
    );
  });
});

describe('maven runner', () => {
  it('reads the compact Surefire report: CLASS#method ids, failures failed', () => {
    const cases = mavenRunner.parse(fixture('maven-pr2570-before.txt'));
    const got = outcomes(cases);
    expect(cases).toHaveLength(57);
    expect(got['org.jsoup.parser.XmlTreeBuilderTest#xmlParserHasDefaultDepth']).toBe('failed');
    expect(got['org.jsoup.parser.XmlTreeBuilderTest#deepEndTagClosesElement']).toBe('failed');
    expect(got['org.jsoup.parser.XmlTreeBuilderTest#testPopToClose']).toBe('passed');
  });

  it('reads a whole Surefire XML report as well', () => {
    const got = outcomes(mavenRunner.parse(fixture('surefire-TEST-XmlTreeBuilderTest-before.xml')));
    expect(Object.keys(got)).toHaveLength(6);
    expect(got['org.jsoup.parser.XmlTreeBuilderTest#xmlParserHasDefaultDepth']).toBe('failed');
    expect(Object.values(got).filter((o) => o === 'passed')).toHaveLength(4);
  });

  it('treats errors, skips and flaky reruns as Surefire means them', () => {
    const report = [
      'report: ./m/target/surefire-reports/TEST-a.BTest.xml',
      '<testcase name="boom">',
      '<error>',
      '<testcase name="off">',
      '<skipped message="disabled"/>',
      '<testcase name="flaky">',
      '<flakyFailure>',
      '<testcase name="x" classname="a.Other"/>',
      '<testcase name="p(String)[1] a &amp; b"/>',
    ].join('\n');
    expect(outcomes(mavenRunner.parse(report))).toEqual({
      'a.BTest#boom': 'error',
      'a.BTest#off': 'skipped',
      'a.BTest#flaky': 'passed',
      'a.Other#x': 'passed',
      'a.BTest#p(String)[1] a & b': 'passed',
    });
    expect(mavenRunner.parse('[ERROR] COMPILATION ERROR :\n[INFO] BUILD FAILURE')).toBeUndefined();
  });

  it('runs the PR test classes by their full names, or every test', () => {
    expect(
      mavenTestClasses([
        'src/test/java/org/jsoup/parser/XmlTreeBuilderTest.java',
        'src/test/resources/x.html',
        'core/src/test/java11/a/B.java',
      ]),
    ).toEqual(['a.B', 'org.jsoup.parser.XmlTreeBuilderTest']);
    expect(mavenTestClasses(['src/test/resources/x.html'])).toBeUndefined();
    expect(mavenRunner.command(['src/test/java/a/BTest.java'])).toMatch(/-Dtest=a\.BTest\b(?!\.)/);
    expect(mavenRunner.command([])).not.toContain('-Dtest=');
  });
});
