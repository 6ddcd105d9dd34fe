import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CLAMP = (body: string) => `int clamp(int x, int lo, int hi) { ${body} }\n`;
/**
 * A C client's test, as a redis or memcached client's suite is: it says where it connects, then, on
 * the next line, the error of a connection nothing accepts (the sandbox runs no server).
 */
const CLIENT_TEST = (check: string) => `#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
int clamp(int, int, int);
int main(void) {
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(6390) };
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  printf("Testing against TCP connection (127.0.0.1:6390):\\n");
  if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
    printf("Connection error: %s\\n", strerror(errno));
    return 1;
  }
  return !(${check});
}
`;

/**
 * Tests that need a server on the loopback fail the same before and after the change, and their
 * stage can verify nothing: its reason must say a service was needed, with the refused connection.
 * The address and the error were on different lines, which the known clients' one-line messages did
 * not match, and CTest showed none of the program's output at all.
 */
test.each([
  [
    'CMake',
    {
      'CMakeLists.txt':
        'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_library(clamp clamp.c)\n' +
        'add_executable(test_client tests/test_client.c)\ntarget_link_libraries(test_client clamp)\nadd_test(NAME client COMMAND test_client)\n',
    },
  ],
  [
    'make',
    { Makefile: 'test: test_client\n\t./test_client\ntest_client: clamp.c tests/test_client.c\n\t$(CC) -o $@ $^\n' },
  ],
])('%s: tests refused by a local endpoint give a reason naming the service', async (_, build) => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-service-'));
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    ...build,
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'tests/test_client.c': CLIENT_TEST('clamp(-5, 0, 10) == 0'),
  });
  const fix = {
    'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/test_client.c': CLIENT_TEST('clamp(-5, 0, 10) == 0 && clamp(50, 0, 10) == 10'),
  };
  const chain = repo.chain('gen/clamp-service', [await repo.pr(1, 'Clamp from above too', fix)]);
  const environments = testEnvironments(docker);
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
  expect(gold.failToPass).toEqual([]);
  expect(gold.reason).toMatchObject({
    kind: 'tests-not-runnable',
    summary: expect.stringContaining(
      'need a service the sandbox does not run ("Testing against TCP connection (127.0.0.1:6390): ⏎ Connection error: Connection refused")',
    ),
    tail: expect.stringContaining('Connection error: Connection refused'),
  });
});

/** A suite that passes needed no service, though one of its tests prints a refused connection it expects. */
test('make: a passing run that prints a refused local connection is no service', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-service-'));
  const tolerant = (check: string) => CLIENT_TEST(check).replace('return 1;', 'return !(clamp(-5, 0, 10) == 0);');
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    Makefile: 'test: test_client\n\t./test_client\ntest_client: clamp.c tests/test_client.c\n\t$(CC) -o $@ $^\n',
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'tests/test_client.c': tolerant('1'),
  });
  const fix = { 'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'), 'tests/test_client.c': tolerant('2') };
  const chain = repo.chain('gen/clamp-no-service', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold.reason).toMatchObject({ kind: 'no-verifying-test' });
});

/**
 * A test harness that starts its own server before the test program (hiredis's test.sh runs
 * redis-server): the image has no such program, the script stops at once, and the stage's reason
 * said only that no test passed.
 */
test('CMake: a test script whose server program is not installed gives a reason naming the service', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-c-service-'));
  const cmake =
    'cmake_minimum_required(VERSION 3.10)\nproject(clamp C)\nenable_testing()\nadd_library(clamp clamp.c)\n' +
    'add_executable(test_client tests/test_client.c)\ntarget_link_libraries(test_client clamp)\n' +
    'add_test(NAME client COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test.sh $<TARGET_FILE:test_client>)\n';
  const repo = await ChainRepo.create(join(dir, 'repo'), {
    'CMakeLists.txt': cmake,
    'test.sh': 'set -e\nacme-server --port 56379 --daemonize yes\n"$1"\n',
    'clamp.c': CLAMP('return x < lo ? lo : x;'),
    'tests/test_client.c': CLIENT_TEST('clamp(-5, 0, 10) == 0'),
  });
  const fix = {
    'clamp.c': CLAMP('return x < lo ? lo : x > hi ? hi : x;'),
    'tests/test_client.c': CLIENT_TEST('clamp(-5, 0, 10) == 0 && clamp(50, 0, 10) == 10'),
  };
  const chain = repo.chain('gen/clamp-server-missing', [await repo.pr(1, 'Clamp from above too', fix)]);
  const gold = await goldTestsFor(goldDeps(docker, dir, testEnvironments(docker)), chain, 0);
  expect(gold.reason).toMatchObject({
    kind: 'tests-not-runnable',
    summary: expect.stringContaining('need a service the sandbox does not run ("acme-server: not found")'),
  });
});
