import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

/** A C++ header of the library's own with a dynamic exception specification, as C++ before 2017 wrote. */
const HEADER = (body: string) =>
  `#include <new>\ninline int clamp(int x, int lo, int hi) throw(std::bad_alloc) { ${body} }\n`;

/**
 * A C++ library that names no standard, written when C++14 was the compiler's default: C++17 (GCC
 * 11's default) removed dynamic exception specifications, every test program failed to compile, and
 * the environment was not built.
 */
test('CMake: C++ that names no standard and uses what C++17 removed builds and its test verifies', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-cxx14-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'CMakeLists.txt':
      'cmake_minimum_required(VERSION 3.18)\nproject(clamp CXX)\nenable_testing()\n' +
      'add_executable(clamp_test tests/clamp_test.cpp)\nadd_test(NAME clamp_test COMMAND clamp_test)\n',
    'clamp.hpp': HEADER('return x < lo ? lo : x;'),
    'tests/clamp_test.cpp': '#include "../clamp.hpp"\nint main() { return clamp(-5, 0, 10) != 0; }\n',
  });
  const fix = {
    'clamp.hpp': HEADER('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/clamp_test.cpp':
      '#include "../clamp.hpp"\nint main() { return clamp(-5, 0, 10) != 0 || clamp(50, 0, 10) != 10; }\n',
  };
  const chain = repo.chain('gen/clamp-cxx14', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['clamp_test'] });
});
