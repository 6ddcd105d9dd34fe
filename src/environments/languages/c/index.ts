import type { LanguageSupport } from '../../contract';
import { ctestRunner } from './ctest';
import { detectC } from './detect';
import { makeRunner } from './make';

/** C and C++: CMake, meson or make on Debian's compilers (detect.ts); nothing is fetched. */
export const c: LanguageSupport<'c', 'ctest' | 'make', 'c'> = {
  name: 'c',
  title: 'C/C++',
  layouts: ['CMakeLists.txt', 'meson.build', 'Makefile'],
  detect: (files) => detectC(files),
  runners: { ctest: ctestRunner, make: makeRunner },
  toolchains: { c: 'gcc --version | head -n 1; cmake --version | head -n 1; meson --version | sed "s/^/meson /"' },
  files: { tests: [], code: ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp'] },
};
