import type { LanguageSupport } from '../../contract';
import { ctestRunner } from './ctest';
import { detectC } from './detect';
import { makeRunner } from './make';

/**
 * Test programs by name where they sit beside the code (a root `test_parse.c`, `tests.c`, `test1.c`) or
 * in a folder of any name (`src/map_test.c`, `lib/url_unittest.cc`): `test` or `tests` alone, numbered,
 * or joined by `_` or `-` at either end of the name. `testing.c`, `attest.c` and `contest.c` are code.
 */
const TEST_NAMES = [/^tests?(\d*|[_-].*)\.(c|cc|cpp|cxx|h|hpp)$/, /[_-](unit)?tests?\.(c|cc|cpp|cxx|h|hpp)$/];

/** C and C++: CMake, meson or make on Debian's compilers (detect.ts); nothing is fetched. */
export const c: LanguageSupport<'c', 'ctest' | 'make', 'c'> = {
  name: 'c',
  title: 'C/C++',
  layouts: ['CMakeLists.txt', 'meson.build', 'Makefile'],
  detect: (files) => detectC(files),
  runners: { ctest: ctestRunner, make: makeRunner },
  toolchains: { c: 'gcc --version | head -n 1; cmake --version | head -n 1; meson --version | sed "s/^/meson /"' },
  files: { tests: TEST_NAMES, code: ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp'] },
};
