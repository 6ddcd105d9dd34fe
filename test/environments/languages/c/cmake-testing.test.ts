// no-docker: needs no Docker engine, so npm test runs it with DOCKER_HOST pointing nowhere (jest.config.js)
import type { RepoFiles } from '../../../../src/environments/contract';
import { cmakeMayRegisterTests } from '../../../../src/environments/languages/c/cmake-testing';

const repo = (tree: Record<string, string>): RepoFiles => ({
  rootFiles: new Set(Object.keys(tree).map((p) => p.split('/')[0])),
  read: async (path) => tree[path],
});

test('a CMake project registers tests where any file its CMakeLists.txt reaches speaks of CTest', async () => {
  const lib = 'project(clamp C)\ninclude(GNUInstallDirs)\nadd_subdirectory("src")\n';
  expect(
    await cmakeMayRegisterTests(repo({ 'CMakeLists.txt': lib, 'src/CMakeLists.txt': 'add_library(c c.c)\n' })),
  ).toBe(false);
  // Through a subdirectory named from the source directory, and a module included by name from cmake/.
  const tests = { 'CMakeLists.txt': 'add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/tests)\n' };
  expect(await cmakeMayRegisterTests(repo({ ...tests, 'tests/CMakeLists.txt': 'add_test(NAME t COMMAND t)\n' }))).toBe(
    true,
  );
  const byName = { 'CMakeLists.txt': 'include(Testing)\n', 'cmake/Testing.cmake': 'enable_testing()\n' };
  expect(await cmakeMayRegisterTests(repo(byName))).toBe(true);
  const relative = { 'CMakeLists.txt': 'add_subdirectory(lib)\n', 'lib/CMakeLists.txt': 'include(../cmake/t.cmake)\n' };
  expect(await cmakeMayRegisterTests(repo({ ...relative, 'cmake/t.cmake': 'include(CTest)\n' }))).toBe(true);
  // What cannot be told may: a path through another variable, a subdirectory absent from the tree (a submodule).
  expect(await cmakeMayRegisterTests(repo({ 'CMakeLists.txt': 'add_subdirectory(${DEPS}/x)\n' }))).toBe(true);
  expect(await cmakeMayRegisterTests(repo({ 'CMakeLists.txt': 'add_subdirectory(vendor/x)\n' }))).toBe(true);
});
