import Docker from 'dockerode';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutLines } from '../../../../src/container/checkout';
import { DockerContainer } from '../../../../src/container/docker-container';
import { CMAKE_BUILD_DIR } from '../../../../src/environments/languages/c/ctest';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';

const docker = new Docker();

const CMAKE =
  'cmake_minimum_required(VERSION 3.10)\nproject(calc C)\nenable_testing()\nadd_library(calc calc.c)\n' +
  'add_executable(test_version tests/test_version.c)\ntarget_link_libraries(test_version calc)\nadd_test(NAME version COMMAND test_version)\n';
const CALC = (n: number) => `int version(void) { return ${n}; }\n`;
const TEST = (n: number) =>
  `#include <stdio.h>\nint version(void);\nint main(void) { int ok = version() == ${n}; printf("%sok 1 - version is ${n}\\n", ok ? "" : "not "); return !ok; }\n`;

/** ccache's counters for one build of the CMake build directory at `sha`, from zero: compiles it found in its store, and those it did not. */
async function ccacheBuild(sandbox: { exec: DockerContainer['exec'] }, sha: string) {
  const r = await sandbox.exec(
    [
      'set -e',
      ...checkoutLines(sha),
      'ccache -z >/dev/null',
      `cmake --build ${CMAKE_BUILD_DIR} >/dev/null`,
      'ccache --print-stats',
    ].join('\n'),
    { timeoutSeconds: 300, maxOutputChars: 8_000, cwd: '/work' },
  );
  expect(r.exitCode).toBe(0);
  const stat = (name: string) => Number(new RegExp(`^${name}\\t(\\d+)$`, 'm').exec(r.output)?.[1] ?? NaN);
  return { hits: stat('direct_cache_hit') + stat('preprocessed_cache_hit'), misses: stat('cache_miss') };
}

/**
 * C's compiler outputs are shared by gold validation's sandboxes through ccache, as Go's build cache
 * is: the next stage's base (the previous stage's merge) was compiled by the previous stage's gold
 * runs, so its build finds every object in the store. An agent's sandbox does not get the store.
 */
test("gold sandboxes share ccache's store: the next stage's base compiles from it, and only gold sandboxes mount it", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-ccache-'));
  const repo = await ChainRepo.create(join(dir, 'calc'), {
    'CMakeLists.txt': CMAKE,
    'calc.c': CALC(1),
    'tests/test_version.c': TEST(1),
  });
  const first = await repo.pr(1, 'Version 2', { 'calc.c': CALC(2), 'tests/test_version.c': TEST(2) });
  const second = await repo.pr(2, 'Version 3', { 'calc.c': CALC(3), 'tests/test_version.c': TEST(3) });
  const chain = repo.chain('gen/calc-c', [first, second]);
  // A data directory of its own: its shared store starts empty.
  const environments = testEnvironments(docker, {}, join(dir, 'data'));
  const deps = goldDeps(docker, dir, environments);
  const env = await environments.forStage(chain, 0);
  expect(env.recipe.origin).toBe('c-cmake');
  // One image for both stages (same CMakeLists.txt, nothing fetched), built at stage 1's base.
  expect((await environments.forStage(chain, 1)).image).toBe(env.image);
  expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
    status: 'verified',
    failToPass: expect.arrayContaining(['version']),
  });
  // Seeded once from the image's own store (its setup compiled the project at stage 1's base), then filled by the gold runs.
  expect(await readdir(join(dir, 'data', 'build-cache', 'c'))).toContain(`.seeded-${env.image.replace(':', '_')}`);

  const gold = await StageSandbox.open(deps, chain, 1, { role: { kind: 'gold' }, carryPatch: '' }, env);
  try {
    // Stage 2's base is stage 1's merge, whose sources stage 1's gold runs compiled into the shared store.
    const built = await ccacheBuild(gold, second.baseSha);
    expect(built.misses).toBe(0);
    expect(built.hits).toBeGreaterThan(0);
  } finally {
    await gold.destroy();
  }
  // A sandbox without it (an agent's) has only the image's store, filled at stage 1's base: calc.c as it is at stage 2's base is new to it.
  const plain = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repo.path,
    labels: { 'chainsmith.test': 'ccache' },
    memoryMb: 1024,
    pidsLimit: 256,
  });
  try {
    expect((await ccacheBuild(plain, second.baseSha)).misses).toBeGreaterThan(0);
  } finally {
    await plain.destroy();
  }
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
}, 600_000);
