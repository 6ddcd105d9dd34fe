import type { LanguageRecipe, RepoFiles } from '../../contract';
import { AUTOTOOLS_SETUP, AUTOTOOLS_TEST } from './autotools';
import { REGISTER_TESTS_SCRIPT, WRITE_REGISTER_TESTS } from './cmake-register-tests';
import { cmakeMayRegisterTests } from './cmake-testing';
import { cmakeTestOptions } from './cmake-test-options';
import { CMAKE_BUILD_DIR } from './ctest';
import { MAKE_DIR, MAKE_TARGET } from './make';
import { MESON_DOCS_OFF } from './meson-options';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type CRecipe = LanguageRecipe<'c', 'ctest' | 'make', 'c'>;

const MESON_BUILD_DIR = '/work/build';
/** ccache's store in the image, warmed by its setup's build (rollouts use it as it is). */
const IMAGE_CCACHE = '/home/agent/.cache/ccache';

/**
 * Compiler outputs cached by ccache (images/toolchains/c): keyed by a hash of the compiler, its flags
 * and the preprocessed source, and safe for concurrent writers, so gold validation's sandboxes share
 * one store across stages and chains (LanguageRecipe.sharedCache) as Go's do with GOCACHE. An image is
 * built at one commit and a stage far from it recompiles what changed since, in every test run that
 * checks out anew: with the store shared, a file compiled once in a run is compiled only once.
 */
const CCACHE = {
  env: { CCACHE_DIR: IMAGE_CCACHE },
  sharedCache: { dir: '/cache/ccache', env: { CCACHE_DIR: '/cache/ccache' }, seedFrom: IMAGE_CCACHE },
};

/** Debian's ccache links named as the compilers: first on PATH, configure's gcc is ccache's. */
const CCACHE_MASQUERADE = '/usr/lib/ccache';

/** Where the image keeps the compilers of NO_WERROR (outside the working tree, as the build directories). */
const NO_WERROR_DIR = '/work/.chainsmith-cc';

/**
 * Setup that writes cc, gcc, c++ and g++ into NO_WERROR_DIR, each Debian's own with `-Wno-error` last
 * on its command line, so that it wins over any `-Werror` a project's build gives. The image's
 * compiler is newer than most of a project's history, and warns where the compilers of its time did
 * not (gcc 7's implicit-fallthrough, an implicit declaration a header once made): a project that
 * builds with -Werror would not build at all, and no stage of it could run a test. Its warnings still
 * print. ccache's links (CCACHE_MASQUERADE, before it on PATH) and CMake's launcher call these.
 *
 * C++ that names no standard was written for its compiler's default, C++14 before GCC 11 and C++17
 * since: what C++17 removed (dynamic exception specifications, `register`) is an error here, and a
 * header of the library's own that uses it stopped every test program. A C++ compilation with no
 * `-std` that fails for one of those ("ISO C++17 does not allow") runs again as gnu++14.
 */
const NO_WERROR = [
  `mkdir -p ${NO_WERROR_DIR} && for c in cc gcc; do printf '#!/bin/sh\\nexec /usr/bin/%s "$@" -Wno-error\\n' $c >${NO_WERROR_DIR}/$c && chmod +x ${NO_WERROR_DIR}/$c || exit 2; done`,
  `for c in c++ g++; do { printf '#!/bin/sh\\nc=/usr/bin/%s\\n' $c; cat <<'EOF'`,
  'case " $* " in *" -std="*) exec $c "$@" -Wno-error ;; esac',
  'e=$(mktemp) || exec $c "$@" -Wno-error',
  '$c "$@" -Wno-error 2>"$e"; s=$?',
  'if [ $s -ne 0 ] && grep -q "ISO C++17 does not allow" "$e"; then rm -f "$e"; exec $c "$@" -std=gnu++14 -Wno-error; fi',
  'cat "$e" >&2; rm -f "$e"; exit $s',
  'EOF',
  `} >${NO_WERROR_DIR}/$c && chmod +x ${NO_WERROR_DIR}/$c || exit 2; done`,
].join('\n');

/**
 * C and C++ projects on Debian's gcc, CMake, meson, autotools and make. CMake and meson configure and
 * build once in the image, in a build directory outside the working tree; a test run rebuilds what the
 * checkout changed. Libraries a project needs must come from the toolchain image (images/toolchains/c/packages)
 * or a configured recipe: nothing is fetched (FetchContent and wraps that download fail offline).
 */
export async function detectC(files: RepoFiles): Promise<CRecipe | undefined> {
  const has = (name: string) => files.rootFiles.has(name);
  const base = {
    language: 'c' as const,
    toolchain: { image: 'c' as const },
    env: { CHAINSMITH_BUILD_DIR: CMAKE_BUILD_DIR },
    path: [NO_WERROR_DIR],
  };
  if (has('CMakeLists.txt')) {
    // A root project that never enables CTest builds the library; a test folder's Makefile builds and runs the tests.
    const tests = (await cmakeMayRegisterTests(files)) ? undefined : await testsBuild(files, base);
    return tests?.origin === 'c-make' ? tests : cmakeRecipe(base, '.');
  }
  if (has('meson.build')) {
    return {
      ...base,
      origin: 'c-meson',
      // meson setup puts ccache before the compilers by itself where it finds it on PATH.
      env: { ...base.env, ...CCACHE.env },
      sharedCache: CCACHE.sharedCache,
      manifests: [
        'meson.build',
        ...(has('meson_options.txt') ? ['meson_options.txt'] : []),
        ...(has('meson.options') ? ['meson.options'] : []),
      ],
      setup: [NO_WERROR, MESON_DOCS_OFF, `meson setup ${MESON_BUILD_DIR} $off`, `meson compile -C ${MESON_BUILD_DIR}`],
      runner: 'make',
      test: `meson compile -C ${MESON_BUILD_DIR} && meson test -C ${MESON_BUILD_DIR} --print-errorlogs`,
    };
  }
  const autoconf = ['configure.ac', 'configure.in'].find(has);
  if (autoconf) {
    return {
      ...base,
      origin: 'c-autotools',
      env: { ...CCACHE.env },
      path: [CCACHE_MASQUERADE, NO_WERROR_DIR],
      sharedCache: CCACHE.sharedCache,
      manifests: [autoconf, ...(has('Makefile.am') ? ['Makefile.am'] : [])],
      setup: [NO_WERROR, ...AUTOTOOLS_SETUP],
      runner: 'make',
      test: AUTOTOOLS_TEST,
    };
  }
  const makefile = ['GNUmakefile', 'Makefile', 'makefile'].find(has);
  if (makefile) {
    const target = testTarget((await files.read(makefile)) ?? '');
    if (!target)
      return { ...makeRecipe(base, makefile), test: 'echo "the Makefile has no test or check target" >&2; exit 2' };
    return makeRecipe(base, makefile, { [MAKE_TARGET]: target });
  }
  return testsBuild(files, base);
}

type Base = Pick<CRecipe, 'language' | 'toolchain' | 'env' | 'path'>;

/**
 * CMake configured from `source` and built once in the image; CTest runs the tests. A test folder's
 * own project (`source` is not the root) gets its programs registered as tests where it registers
 * none (cmake-register-tests.ts): the folder is the tests' build, so what it makes is a test.
 */
function cmakeRecipe(base: Base, source: string): CRecipe {
  const tests = source === '.' ? '' : ` -DCMAKE_PROJECT_INCLUDE=${REGISTER_TESTS_SCRIPT}`;
  return {
    ...base,
    origin: 'c-cmake',
    manifests: [source === '.' ? 'CMakeLists.txt' : `${source}/CMakeLists.txt`],
    env: { ...base.env, ...CCACHE.env },
    sharedCache: CCACHE.sharedCache,
    setup: [
      NO_WERROR,
      ...(tests ? [WRITE_REGISTER_TESTS] : []),
      `cmake -S ${source} -B ${CMAKE_BUILD_DIR} -G 'Unix Makefiles' -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache${tests}`,
      cmakeTestOptions(CMAKE_BUILD_DIR, source),
      `cmake --build ${CMAKE_BUILD_DIR} -j2`,
    ],
    runner: 'ctest',
  };
}

const testTarget = (text: string) =>
  /^test\s*:/m.test(text) ? 'test' : /^check\s*:/m.test(text) ? 'check' : undefined;

/** Plain make; `env` says where its suite runs and by which target (make.ts), which its runner narrows to the PR's tests. */
function makeRecipe(base: Base, makefile: string, env: Record<string, string> = {}): CRecipe {
  return {
    ...base,
    env,
    origin: 'c-make',
    manifests: [makefile],
    // The build products would sit in the working tree, which the image does not keep: tests build.
    setup: [NO_WERROR],
    runner: 'make',
  };
}

/**
 * A library with no build at its root whose tests have a build of their own in their folder (a
 * header-only library's `tests/Makefile` or `test/CMakeLists.txt`), or whose root CMake project never
 * enables CTest: that is its tests' build. A Makefile's
 * test or check target, else its default one (in a test folder, the tests), runs them; a CMake
 * project is built and its tests run as a root one's are.
 */
async function testsBuild(files: RepoFiles, base: Base): Promise<CRecipe | undefined> {
  for (const dir of ['test', 'tests'].filter((d) => files.rootFiles.has(d))) {
    const text = await files.read(`${dir}/Makefile`);
    if (text !== undefined) {
      const target = testTarget(text);
      return makeRecipe(base, `${dir}/Makefile`, { [MAKE_DIR]: dir, [MAKE_TARGET]: target ?? '' });
    }
    if ((await files.read(`${dir}/CMakeLists.txt`)) !== undefined) return cmakeRecipe(base, dir);
  }
  return undefined;
}
