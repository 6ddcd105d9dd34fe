import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo, type Files } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;

async function validate(name: string, files: Files, fix: Files) {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-syslib-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), { ...files, 'clamp.c': CLAMP('return x < lo ? lo : x;') });
  const chain = repo.chain(name, [
    await repo.pr(1, 'Clamp from above too', { ...fix, 'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;') }),
  ]);
  return goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
}

/**
 * A C library whose C++ suite is on GoogleTest and also links zlib, both found on the system and the
 * suite left out where either is missing (as msgpack-c's CMakeLists does): without them in the image
 * no test was found, before or after the change.
 */
test('CMake: a GoogleTest suite that needs zlib is built and its cases give FAIL_TO_PASS', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.18)\nproject(clamp C CXX)\nadd_library(clamp clamp.c)\n' +
    'find_package(GTest)\nfind_package(ZLIB)\nif(GTEST_FOUND AND ZLIB_FOUND)\n  enable_testing()\n' +
    '  add_executable(clamp_test tests/clamp_test.cc)\n' +
    '  target_link_libraries(clamp_test clamp GTest::gtest_main ZLIB::ZLIB)\n' +
    '  add_test(NAME clamp_test COMMAND clamp_test)\nendif()\n';
  const suite = (cases: string[]) =>
    '#include <gtest/gtest.h>\n#include <zlib.h>\nextern "C" int clamp(int, int, int);\n' +
    'TEST(Clamp, Compresses) { EXPECT_GT(compressBound(10), 10u); }\n' +
    cases.map((c) => `TEST(Clamp, ${c.split('|')[0]}) { EXPECT_TRUE(${c.split('|')[1]}); }\n`).join('');
  const low = 'Below|clamp(-5, 0, 10) == 0';
  const gold = await validate(
    'gen/clamp-gtest',
    { 'CMakeLists.txt': cmake, 'tests/clamp_test.cc': suite([low]) },
    { 'tests/clamp_test.cc': suite([low, 'Above|clamp(50, 0, 10) == 10']) },
  );
  expect(gold).toMatchObject({ status: 'verified', signal: 'per-test' });
  expect(gold.failToPass.some((t) => t.includes('Above'))).toBe(true);
  expect(gold.passToPass.some((t) => t.includes('Below'))).toBe(true);
});

/**
 * A protocol-buffers code generator's suite (as protobuf-c's): its test compiles a .proto with protoc
 * and links libprotobuf and libprotoc, left out where they are missing.
 */
test('CMake: a suite on protoc, libprotobuf and libprotoc is built and gives FAIL_TO_PASS', async () => {
  const cmake =
    'cmake_minimum_required(VERSION 3.18)\nproject(clamp C CXX)\nadd_library(clamp clamp.c)\nfind_package(Protobuf)\n' +
    'if(Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE AND Protobuf_PROTOC_LIBRARY)\n  enable_testing()\n' +
    '  add_custom_command(OUTPUT range.pb.cc range.pb.h COMMAND ${Protobuf_PROTOC_EXECUTABLE} --cpp_out=. ' +
    '-I${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/range.proto DEPENDS range.proto)\n' +
    '  add_executable(clamp_test tests/clamp_test.cc range.pb.cc)\n' +
    '  target_include_directories(clamp_test PRIVATE ${CMAKE_CURRENT_BINARY_DIR})\n' +
    '  target_link_libraries(clamp_test clamp protobuf::libprotobuf ${Protobuf_PROTOC_LIBRARY})\n' +
    '  add_test(NAME clamp_test COMMAND clamp_test)\nendif()\n';
  const proto = 'syntax = "proto3";\nmessage Range { int32 lo = 1; int32 hi = 2; }\n';
  const suite = (check: string) =>
    '#include "range.pb.h"\n#include <google/protobuf/compiler/importer.h>\nextern "C" int clamp(int, int, int);\n' +
    'int main() {\n  google::protobuf::compiler::DiskSourceTree tree;\n  Range r;\n  r.set_lo(0);\n  r.set_hi(10);\n' +
    `  Range back;\n  back.ParseFromString(r.SerializeAsString());\n  return !(${check});\n}\n`;
  const gold = await validate(
    'gen/clamp-protobuf',
    {
      'CMakeLists.txt': cmake,
      'range.proto': proto,
      'tests/clamp_test.cc': suite('clamp(-5, back.lo(), back.hi()) == 0'),
    },
    { 'tests/clamp_test.cc': suite('clamp(-5, back.lo(), back.hi()) == 0 && clamp(50, back.lo(), back.hi()) == 10') },
  );
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['clamp_test'] });
});
