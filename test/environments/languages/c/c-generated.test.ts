import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../../src/artifacts/store';
import { checkoutLines } from '../../../../src/container/checkout';
import { DockerContainer } from '../../../../src/container/docker-container';
import { CMAKE_BUILD_DIR } from '../../../../src/environments/languages/c/ctest';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo, type Files } from '../../../support/chain-repo';
import { testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
const BUGGY = CLAMP('return x < lo ? lo : x;');
const FIXED = CLAMP('return x < lo ? lo : x > hi ? hi : x;');
/** A test program printing TAP, the way small C projects' `make check` does. */
const TESTS = (cases: string[]) =>
  `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int n = 0, bad = 0;\n${cases.map((c) => `  { int ok = ${c.split('|')[1]}; printf("%sok %d - ${c.split('|')[0]}\\n", ok ? "" : "not ", ++n); bad += !ok; }\n`).join('')}  return bad != 0;\n}\n`;
const LOW = 'clamps below|clamp(-5, 0, 10) == 0';
const HIGH = 'clamps above|clamp(50, 0, 10) == 10';

async function validate(name: string, files: Files, fix: Files) {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), files);
  const chain = repo.chain(name, [await repo.pr(1, 'Clamp from above too', fix)]);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  const gold = await goldTestsFor(
    {
      docker,
      store: new ArtifactStore(join(dir, 'artifacts')),
      sandbox: { memoryMb: 512, pidsLimit: 256 },
      environments,
    },
    chain,
    0,
  );
  return { env, gold };
}

test('plain make: `make check` builds and runs the tests; their TAP lines give FAIL_TO_PASS', async () => {
  const makefile =
    'CFLAGS ?= -O0 -g\ncheck: test_clamp\n\t./test_clamp\ntest_clamp: clamp.c tests/test_clamp.c\n\t$(CC) $(CFLAGS) -o $@ $^\n';
  const { env, gold } = await validate(
    'gen/clamp-make',
    { Makefile: makefile, 'clamp.c': BUGGY, 'tests/test_clamp.c': TESTS([LOW]) },
    { 'clamp.c': FIXED, 'tests/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(env).toMatchObject({
    language: 'c',
    runner: 'make',
    recipe: { origin: 'c-make', env: { CHAINSMITH_MAKE_TARGET: 'check' } },
  });
  expect(gold).toMatchObject({
    status: 'verified',
    signal: 'per-test',
    failToPass: ['clamps above'],
    passToPass: ['clamps below'],
  });
});

/**
 * Unity ends a test's line only when the test concludes: what the test printed without a newline sits
 * before its record (`checking… tests/test_clamp.c:7:clamps_above:PASS`), and a framework's
 * self-tests print the failure record of an assertion they expect to fail there too. Records were read
 * only at a line's start: such a test had no result before or after its change.
 */
test('plain make: a Unity record after the test’s own output on its line is the test’s result', async () => {
  const unity = (cases: string[]) =>
    `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int bad = 0;\n${cases
      .map(
        (c, i) =>
          `  { int ok = ${c.split('|')[1]}; printf("checking... "); ` +
          `printf(ok ? "tests/test_clamp.c:${i + 4}:${c.split('|')[0]}:PASS\\n" : "tests/test_clamp.c:${i + 4}:${c.split('|')[0]}:FAIL: Expected 10\\n"); bad += !ok; }\n`,
      )
      .join('')}  return bad != 0;\n}\n`;
  const makefile = 'test: test_clamp\n\t./test_clamp\ntest_clamp: clamp.c tests/test_clamp.c\n\t$(CC) -o $@ $^\n';
  const low = 'clamps_below|clamp(-5, 0, 10) == 0';
  const high = 'clamps_above|clamp(50, 0, 10) == 10';
  const { gold } = await validate(
    'gen/clamp-unity-midline',
    { Makefile: makefile, 'clamp.c': BUGGY, 'tests/test_clamp.c': unity([low]) },
    { 'clamp.c': FIXED, 'tests/test_clamp.c': unity([low, high]) },
  );
  expect(gold).toMatchObject({
    status: 'verified',
    signal: 'per-test',
    failToPass: ['clamps_above'],
    passToPass: ['clamps_below'],
  });
});

test('meson: configured and built in the image; `meson test` result lines give FAIL_TO_PASS per test', async () => {
  const meson = (tests: string[]) =>
    `project('clamp', 'c')\nlib = static_library('clamp', 'clamp.c')\n` +
    tests.map((t) => `test('${t}', executable('${t}', 'tests/${t}.c', link_with: lib))\n`).join('');
  const single = (c: string) => TESTS([c]);
  const { env, gold } = await validate(
    'gen/clamp-meson',
    { 'meson.build': meson(['below']), 'clamp.c': BUGGY, 'tests/below.c': single(LOW) },
    { 'meson.build': meson(['below', 'above']), 'clamp.c': FIXED, 'tests/above.c': single(HIGH) },
  );
  expect(env).toMatchObject({ language: 'c', runner: 'make', recipe: { origin: 'c-meson' } });
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toEqual(['above']);
  expect(gold.passToPass).toEqual(['below']);
});

describe('autotools', () => {
  const configure =
    'AC_INIT([clamp], [1.0])\nAM_INIT_AUTOMAKE([foreign subdir-objects])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n';
  const makefileAm = (tests: string[]) =>
    `check_PROGRAMS = ${tests.map((t) => `test_${t}`).join(' ')}\nTESTS = $(check_PROGRAMS)\n` +
    tests.map((t) => `test_${t}_SOURCES = tests/test_${t}.c clamp.c\n`).join('');

  test("configure made by autoreconf, built in the image; the test driver's lines give FAIL_TO_PASS per program", async () => {
    const { env, gold } = await validate(
      'gen/clamp-autotools',
      {
        'configure.ac': configure,
        'Makefile.am': makefileAm(['low']),
        'clamp.c': BUGGY,
        'tests/test_low.c': TESTS([LOW]),
      },
      { 'Makefile.am': makefileAm(['low', 'high']), 'clamp.c': FIXED, 'tests/test_high.c': TESTS([HIGH]) },
    );
    expect(env).toMatchObject({ language: 'c', runner: 'make', recipe: { origin: 'c-autotools' } });
    expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
    expect(gold.failToPass).toEqual(['test_high']);
    expect(gold.passToPass).toEqual(['test_low']);
  });

  /**
   * automake builds a directory's test programs and runs its tests in one recipe: a PR's test that
   * cannot link before its change (it calls what the change adds) must not keep the other tests of
   * its directory from running there, and it fails there (as a missing program does under CTest).
   */
  test('a test program that does not build before the change fails there, and the other tests still run', async () => {
    const withMax = `${FIXED}int clamp_max(int x, int hi) { return x > hi ? hi : x; }\n`;
    const usesMax = TESTS([LOW])
      .replace('int clamp(int, int, int);', 'int clamp(int, int, int);\nint clamp_max(int, int);')
      .replace('return bad != 0;', 'bad += clamp_max(50, 10) != 10;\n  return bad != 0;');
    const { gold } = await validate(
      'gen/clamp-autotools-link',
      {
        'configure.ac': configure,
        'Makefile.am': makefileAm(['low', 'high']),
        'clamp.c': BUGGY,
        'tests/test_low.c': TESTS([LOW]),
        'tests/test_high.c': TESTS([LOW]),
      },
      { 'clamp.c': withMax, 'tests/test_high.c': usesMax },
    );
    expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
    expect(gold.failToPass).toEqual(['test_high']);
    expect(gold.passToPass).toEqual(['test_low']);
  });

  /**
   * A test that reads its data by a path relative to where it runs, as the project's own in-tree
   * builds let it: the build here is out of the tree, where the file was missing and the PR's new test
   * failed after its change as before it. The build tree gets links to the source tree's data files.
   */
  test("a PR's test that reads its data file from the tree it runs in passes after the change", async () => {
    const reads = `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int x, lo, hi, want;\n  FILE *f = fopen("tests/high.data", "r");\n  if (!f || fscanf(f, "%d %d %d %d", &x, &lo, &hi, &want) != 4) { printf("not ok 1 - no data\\n"); return 1; }\n  printf("%sok 1 - from file\\n", clamp(x, lo, hi) == want ? "" : "not ");\n  return clamp(x, lo, hi) != want;\n}\n`;
    const { gold } = await validate(
      'gen/clamp-autotools-data',
      {
        'configure.ac': configure,
        'Makefile.am': makefileAm(['low']),
        'clamp.c': BUGGY,
        'tests/test_low.c': TESTS([LOW]),
      },
      {
        'Makefile.am': makefileAm(['low', 'high']),
        'clamp.c': FIXED,
        'tests/test_high.c': reads,
        'tests/high.data': '50 0 10 10\n',
      },
    );
    expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
    expect(gold.failToPass).toEqual(['test_high']);
    expect(gold.passToPass).toEqual(['test_low']);
  });
});

/**
 * A stage far from the commit its environment was built at: the sandbox's fresh checkout dates back
 * the files that commit has as they are, so the first build compiles only what changed since, not the
 * whole project (make and CMake go by modification times; every file of a fresh checkout is new).
 */
test('CMake: a stage sharing an environment built at an older commit rebuilds only the sources changed since', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-mtimes-'));
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(pair C)\nenable_testing()\nadd_library(pair a.c b.c)\nadd_executable(test_pair tests/test_pair.c)\ntarget_link_libraries(test_pair pair)\nadd_test(NAME pair COMMAND test_pair)\n';
  const test =
    '#include <stdio.h>\nint a(void); int b(void);\nint main(void) { printf("%d %d\\n", a(), b()); return 0; }\n';
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'CMakeLists.txt': cmake,
    'a.c': 'int a(void) { return 1; }\n',
    'b.c': 'int b(void) { return 2; }\n',
    'tests/test_pair.c': test,
  });
  const first = repo.chain('gen/pair-1', [await repo.pr(1, 'Change b', { 'b.c': 'int b(void) { return 3; }\n' })]);
  const later = repo.chain('gen/pair-2', [
    await repo.pr(2, 'Change b again', { 'b.c': 'int b(void) { return 4; }\n' }),
  ]);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(first, 0);
  // Same CMakeLists.txt, nothing fetched: the later stage shares the image built at the first one's base.
  expect((await environments.forStage(later, 0)).image).toBe(env.image);
  const sandbox = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'c-mtimes' },
    memoryMb: 512,
    pidsLimit: 256,
  });
  try {
    const dryRun = async (sha: string) => {
      const r = await sandbox.exec(
        `set -e\n${checkoutLines(sha).join('\n')}\nmake -C ${CMAKE_BUILD_DIR} -n 2>&1 | grep -o '[ab]\\.c\\.o -c' | sort -u`,
        { timeoutSeconds: 120, maxOutputChars: 4_000, cwd: '/work' },
      );
      expect(r.exitCode).toBe(0);
      return r.output
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(' -c', ''));
    };
    // At the base it was built at, nothing; at the later base (b.c changed since), b alone.
    expect(await dryRun(later.prs[0].baseSha)).toEqual(['b.c.o']);
  } finally {
    await sandbox.destroy();
  }
  // And on a fresh checkout of the very commit it was built at, nothing is rebuilt.
  const again = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'c-mtimes' },
    memoryMb: 512,
    pidsLimit: 256,
  });
  try {
    const r = await again.exec(
      `set -e\n${checkoutLines(first.prs[0].baseSha).join('\n')}\nmake -C ${CMAKE_BUILD_DIR} -n 2>&1 | grep -c '\\.c\\.o -c' || true`,
      { timeoutSeconds: 120, maxOutputChars: 4_000, cwd: '/work' },
    );
    expect(r.output.trim()).toBe('0');
    // The index knows the dated-back files: the PR's patch applies with --3way, as a gold replay applies it.
    const patch = first.prs[0].patch.endsWith('\n') ? first.prs[0].patch : `${first.prs[0].patch}\n`;
    const applied = await again.exec(`cd /work/repo && git apply --3way - <<'PATCH_END'\n${patch}PATCH_END`, {
      timeoutSeconds: 60,
      maxOutputChars: 4_000,
    });
    expect(applied.output).not.toMatch(/does not match index/);
    expect(applied.exitCode).toBe(0);
  } finally {
    await again.destroy();
  }
});

/**
 * The environment's build directory holds every test program as built at the image's commit: a PR's
 * test that cannot compile before the gold change (it uses what the PR adds to a header) must fail
 * there, not run the program the image left. (A failed link leaves no program: ld removes it.)
 */
test('CMake: a test program that fails to compile runs as missing, not as the image built it', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(calc C)\nenable_testing()\nadd_library(calc calc.c)\n' +
    'add_executable(test_calc tests/test_calc.c)\ntarget_link_libraries(test_calc calc)\nadd_test(NAME calc COMMAND test_calc)\n';
  const test = (cases: string[]) =>
    `#include <stdio.h>\n#include "../calc.h"\nint main(void) {\n  int bad = 0, n = 0;\n${cases.map((c) => `  { int ok = ${c.split('|')[1]}; printf("%sok %d - ${c.split('|')[0]}\\n", ok ? "" : "not ", ++n); bad += !ok; }\n`).join('')}  return bad != 0;\n}\n`;
  const { gold } = await validate(
    'gen/calc-stale',
    {
      'CMakeLists.txt': cmake,
      'calc.h': 'int version(void);\n',
      'calc.c': 'int version(void) { return 1; }\n',
      'tests/test_calc.c': test(['version|version() == 1']),
    },
    {
      'calc.h': 'int version(void);\n#define CALC_MAX 9\n',
      'tests/test_calc.c': test(['version|version() == 1', 'max|CALC_MAX == 9']),
    },
  );
  expect(gold.status).toBe('verified');
  // The program as a whole: it does not compile before the change (CALC_MAX is missing), so it fails there.
  expect(gold.failToPass).toContain('calc');
  expect(gold.passToPass).not.toContain('calc');
});

/**
 * Two test programs beside the library: a PR whose test files are test sources builds and runs only
 * the tests they name (a header every test includes would otherwise recompile every test program, in
 * every run), and one whose test files include anything else (a data file here) runs them all.
 */
describe('CMake: the PR names its tests by its test sources', () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_library(clamp clamp.c)\n' +
    ['low', 'high']
      .map(
        (t) =>
          `add_executable(test_${t} tests/test_${t}.c)\ntarget_link_libraries(test_${t} clamp)\nadd_test(NAME ${t} COMMAND test_${t})\n`,
      )
      .join('');
  // `low` fails before and after the change: where it runs, it is broken on gold.
  const base = {
    'CMakeLists.txt': cmake,
    'clamp.c': BUGGY,
    'tests/test_low.c': TESTS([LOW, 'clamps the middle|clamp(5, 0, 10) == 6']),
    'tests/test_high.c': TESTS([LOW]),
  };

  test('only its tests run', async () => {
    const { gold } = await validate('gen/clamp-narrow', base, {
      'clamp.c': FIXED,
      'tests/test_high.c': TESTS([LOW, HIGH]),
    });
    expect(gold).toMatchObject({ status: 'verified', signal: 'per-test', brokenOnGold: [] });
    expect(gold.failToPass).toEqual(['high', 'high::clamps above']);
    expect(gold.passToPass).toEqual(['high::clamps below']);
    expect([...gold.passToPass, ...gold.failToPass].filter((id) => id.startsWith('low'))).toEqual([]);
  });

  test('a test file that is no test source runs every test', async () => {
    const { gold } = await validate('gen/clamp-every', base, {
      'clamp.c': FIXED,
      'tests/test_high.c': TESTS([LOW, HIGH]),
      'tests/cases.txt': 'above\n',
    });
    expect(gold.failToPass).toEqual(['high', 'high::clamps above']);
    expect(gold.brokenOnGold).toEqual(expect.arrayContaining(['low', 'low::clamps the middle']));
  });
});

/**
 * Many projects register their tests only under an option of their own, off by default (googletest's
 * `gtest_build_tests`): with BUILD_TESTING alone CTest finds none, and nothing can verify a PR.
 */
test("CMake: the project's own option that builds its tests is turned on", async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\noption(clamp_build_tests "Build the tests." OFF)\n' +
    'option(clamp_skip_tests "Skip the tests." OFF)\nadd_library(clamp clamp.c)\n' +
    'if(clamp_build_tests AND NOT clamp_skip_tests)\n  enable_testing()\n  add_executable(test_clamp tests/test_clamp.c)\n' +
    '  target_link_libraries(test_clamp clamp)\n  add_test(NAME clamp COMMAND test_clamp)\nendif()\n';
  const { gold } = await validate(
    'gen/clamp-test-option',
    { 'CMakeLists.txt': cmake, 'clamp.c': BUGGY, 'tests/test_clamp.c': TESTS([LOW]) },
    { 'clamp.c': FIXED, 'tests/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toEqual(['clamp', 'clamp::clamps above']);
  expect(gold.passToPass).toEqual(['clamp::clamps below']);
});

/** A meson project whose documentation is on by default and needs a tool the image lacks (fribidi's `docs`, c2man). */
test('meson: the documentation options are turned off, so a missing documentation tool does not stop the configuration', async () => {
  const meson =
    "project('clamp', 'c')\nlib = static_library('clamp', 'clamp.c')\n" +
    "if get_option('docs')\n  find_program('chainsmith-absent-doc-tool')\nendif\n" +
    "test('clamp', executable('test_clamp', 'tests/test_clamp.c', link_with: lib))\n";
  const { gold } = await validate(
    'gen/clamp-meson-docs',
    {
      'meson.build': meson,
      'meson_options.txt': "option('docs', type : 'boolean', value : true, description : 'Build documentation')\n",
      'clamp.c': BUGGY,
      'tests/test_clamp.c': TESTS([LOW]),
    },
    { 'clamp.c': FIXED, 'tests/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['clamp'] });
});

/** CTest exits 0 where the configuration registers no test: that run passed nothing, and must not read as a pass. */
test('CMake: a configuration that registers no test runs no test, not one that passes', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_library(clamp clamp.c)\n' +
    'add_executable(test_clamp tests/test_clamp.c)\ntarget_link_libraries(test_clamp clamp)\n';
  const { gold } = await validate(
    'gen/clamp-no-tests',
    { 'CMakeLists.txt': cmake, 'clamp.c': BUGGY, 'tests/test_clamp.c': TESTS([LOW]) },
    { 'clamp.c': FIXED, 'tests/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(gold.passToPass).toEqual([]);
  expect(gold.reason).toMatchObject({ kind: 'tests-not-runnable', tail: expect.stringMatching(/No tests were found/) });
});

/**
 * A project that builds with -Werror, on a compiler that warns where its own did not: the image's
 * compilers put -Wno-error last, so the warning stays a warning and the environment builds (it
 * failed to, and every stage of such a history was build-failed). Here an unused variable under -Wall.
 */
test.each([
  [
    'CMake',
    {
      'CMakeLists.txt':
        'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_compile_options(-Wall -Werror)\nadd_library(clamp clamp.c)\nadd_executable(test_clamp tests/test_clamp.c)\ntarget_link_libraries(test_clamp clamp)\nadd_test(NAME clamp COMMAND test_clamp)\n',
    },
    'clamp',
  ],
  [
    'autotools',
    {
      'configure.ac':
        'AC_INIT([clamp], [1.0])\nAM_INIT_AUTOMAKE([foreign subdir-objects])\nAC_PROG_CC\nCFLAGS="$CFLAGS -Wall -Werror"\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n',
      'Makefile.am':
        'check_PROGRAMS = test_clamp\nTESTS = $(check_PROGRAMS)\ntest_clamp_SOURCES = tests/test_clamp.c clamp.c\n',
    },
    'test_clamp',
  ],
])('%s with -Werror: a warning of this compiler does not stop the build', async (kind, build, test) => {
  const warns = (body: string) => `int clamp(int x, int lo, int hi) { int unused; ${body} }\n`;
  const { gold } = await validate(
    `gen/clamp-werror-${kind.toLowerCase()}`,
    { ...build, 'clamp.c': warns('return x < lo ? lo : x;'), 'tests/test_clamp.c': TESTS([LOW]) },
    { 'clamp.c': warns('return x < lo ? lo : x > hi ? hi : x;'), 'tests/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toContain(test);
});

/**
 * A suite on a C unit-test library (cmocka here), which projects link from the system and never
 * vendor, behind the project's own test option: the image has the library, so the option stays on,
 * the suite builds and its `[       OK ]` / `[  FAILED  ]` lines give FAIL_TO_PASS per case. Without
 * it the configuration failed with the option on, the option went off, and no stage had a test.
 */
test('CMake: a cmocka suite behind its test option builds and runs; its case lines give FAIL_TO_PASS', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.18)\nproject(clamp C)\noption(WITH_TESTS "Build the tests (needs cmocka)." OFF)\n' +
    'add_library(clamp clamp.c)\nif(WITH_TESTS)\n  find_library(CMOCKA cmocka REQUIRED)\n  enable_testing()\n' +
    '  add_executable(clamp_test tests/clamp_test.c)\n  target_link_libraries(clamp_test clamp ${CMOCKA})\n' +
    '  add_test(NAME clamp_test COMMAND clamp_test)\nendif()\n';
  const suite = (cases: string[]) =>
    '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' +
    'int clamp(int, int, int);\n' +
    cases
      .map((c) => `static void ${c.split('|')[0]}(void **state) { (void)state; assert_true(${c.split('|')[1]}); }\n`)
      .join('') +
    `int main(void) {\n  const struct CMUnitTest tests[] = {${cases.map((c) => ` cmocka_unit_test(${c.split('|')[0]}),`).join('')} };\n` +
    '  return cmocka_run_group_tests(tests, NULL, NULL);\n}\n';
  const low = 'clamps_below|clamp(-5, 0, 10) == 0';
  const high = 'clamps_above|clamp(50, 0, 10) == 10';
  const { gold } = await validate(
    'gen/clamp-cmocka',
    { 'CMakeLists.txt': cmake, 'clamp.c': BUGGY, 'tests/clamp_test.c': suite([low]) },
    { 'clamp.c': FIXED, 'tests/clamp_test.c': suite([low, high]) },
  );
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toEqual(['clamp_test', 'clamp_test::clamps_above']);
  expect(gold.passToPass).toEqual(['clamp_test::clamps_below']);
});

/**
 * A header-only library: nothing builds at the root, whose package.json is clib's manifest (no scripts,
 * no dependencies), and the tests' own Makefile in tests/ builds and runs them by its default target.
 * It was taken for a Node project with no test script, and a C build was never looked for.
 */
test('plain make in tests/: a library built only by its test folder’s Makefile, beside a clib package.json', async () => {
  const header = (body: string) => `static inline ${CLAMP(body)}`;
  const makefile =
    'CFLAGS += -I../src\nall: test_clamp\n\t./test_clamp\ntest_clamp: test_clamp.c ../src/clamp.h\n\t$(CC) $(CFLAGS) -o $@ test_clamp.c\n';
  const tests = (cases: string[]) => TESTS(cases).replace('int clamp(int, int, int);', '#include "clamp.h"');
  const { env, gold } = await validate(
    'gen/clamp-tests-make',
    {
      'package.json': JSON.stringify({ name: 'clamp', repo: 'acme/clamp', src: ['src/clamp.h'] }),
      'src/clamp.h': header('return x < lo ? lo : x;'),
      'tests/Makefile': makefile,
      'tests/test_clamp.c': tests([LOW]),
    },
    { 'src/clamp.h': header('return x < lo ? lo : x > hi ? hi : x;'), 'tests/test_clamp.c': tests([LOW, HIGH]) },
  );
  expect(env).toMatchObject({
    language: 'c',
    recipe: { origin: 'c-make', env: { CHAINSMITH_MAKE_DIR: 'tests', CHAINSMITH_MAKE_TARGET: '' } },
  });
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['clamps above'], passToPass: ['clamps below'] });
});

/**
 * A library built with CMake for its users (add_library, install) whose tests are built and run by
 * its test folder's own Makefile: the root project never enables CTest, CTest found no test in its
 * build, and no stage of such a history could run one. The test folder's Makefile is the tests' build.
 */
test('CMake at the root that never enables CTest, beside a test folder’s Makefile: the Makefile runs the tests', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\ninclude(GNUInstallDirs)\nadd_subdirectory(src)\n' +
    'install(TARGETS clamp ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})\n';
  const makefile = 'test: test_clamp\n\t./test_clamp\ntest_clamp: ../src/clamp.c test_clamp.c\n\t$(CC) -o $@ $^\n';
  const { env, gold } = await validate(
    'gen/clamp-cmake-lib-make-tests',
    {
      'CMakeLists.txt': cmake,
      'src/CMakeLists.txt': 'add_library(clamp STATIC clamp.c)\n',
      'src/clamp.c': BUGGY,
      'test/Makefile': makefile,
      'test/test_clamp.c': TESTS([LOW]),
    },
    { 'src/clamp.c': FIXED, 'test/test_clamp.c': TESTS([LOW, HIGH]) },
  );
  expect(env).toMatchObject({
    language: 'c',
    runner: 'make',
    recipe: { origin: 'c-make', env: { CHAINSMITH_MAKE_DIR: 'test', CHAINSMITH_MAKE_TARGET: 'test' } },
  });
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['clamps above'], passToPass: ['clamps below'] });
});

/**
 * A header-only library whose tests have a CMake project of their own in test/, which builds the test
 * programs and registers none with CTest (its CI runs each program): with no build at the root, the
 * layout was unsupported; the folder's programs are its tests, and each runs as one.
 */
test('CMake in test/: a test folder’s own project that registers no test runs its programs as tests', async () => {
  const header = (body: string) => `static inline ${CLAMP(body)}`;
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp_tests C)\ninclude_directories(${CMAKE_CURRENT_SOURCE_DIR}/..)\n' +
    'add_executable(test_clamp main.c)\nadd_executable(helper_tool EXCLUDE_FROM_ALL tool.c)\n';
  const tests = (cases: string[]) => TESTS(cases).replace('int clamp(int, int, int);', '#include "clamp.h"');
  const { env, gold } = await validate(
    'gen/clamp-test-cmake',
    {
      'clamp.h': header('return x < lo ? lo : x;'),
      'test/CMakeLists.txt': cmake,
      'test/main.c': tests([LOW]),
      'test/tool.c': 'int main(void) { return 1; }\n',
    },
    { 'clamp.h': header('return x < lo ? lo : x > hi ? hi : x;'), 'test/main.c': tests([LOW, HIGH]) },
  );
  expect(env).toMatchObject({ language: 'c', runner: 'ctest', recipe: { origin: 'c-cmake' } });
  expect(gold).toMatchObject({
    status: 'verified',
    signal: 'per-test',
    failToPass: ['test_clamp', 'test_clamp::clamps above'],
    passToPass: ['test_clamp::clamps below'],
  });
});

/**
 * utest (a header-only C test framework) colours its GoogleTest-like case lines whether or not it
 * writes to a terminal, and times them in nanoseconds: `\x1b[32m[       OK ]\x1b[0m clamp.low (792ns)`.
 * Those lines were not read, and the test program's exit code was the only result.
 */
test('CMake: coloured GoogleTest-like case lines, timed as utest times them, give FAIL_TO_PASS per case', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_library(clamp clamp.c)\n' +
    'add_executable(clamp_test tests/main.c)\ntarget_link_libraries(clamp_test clamp)\nadd_test(NAME clamp_test COMMAND clamp_test)\n';
  const green = '\\033[32m';
  const red = '\\033[31m';
  const reset = '\\033[0m';
  const suite = (cases: string[]) =>
    `#include <stdio.h>\nint clamp(int, int, int);\nint main(void) {\n  int bad = 0;\n${cases
      .map(
        (c) =>
          `  { int ok = ${c.split('|')[1]}; printf("${green}[ RUN      ]${reset} clamp.${c.split('|')[0]}\\n"); ` +
          `printf(ok ? "${green}[       OK ]${reset} clamp.${c.split('|')[0]} (792ns)\\n" : "${red}[  FAILED  ]${reset} clamp.${c.split('|')[0]} (1.2us)\\n"); bad += !ok; }\n`,
      )
      .join('')}  return bad != 0;\n}\n`;
  const { gold } = await validate(
    'gen/clamp-utest',
    { 'CMakeLists.txt': cmake, 'clamp.c': BUGGY, 'tests/main.c': suite(['low|clamp(-5, 0, 10) == 0']) },
    {
      'clamp.c': FIXED,
      'tests/main.c': suite(['low|clamp(-5, 0, 10) == 0', 'high|clamp(50, 0, 10) == 10']),
    },
  );
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass).toEqual(['clamp_test', 'clamp_test::clamp.high']);
  expect(gold.passToPass).toEqual(['clamp_test::clamp.low']);
});
