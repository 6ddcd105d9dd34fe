import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { sumChain } from '../../../support/java-project';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/**
 * A test JVM that ends in the middle of the run: Surefire's failure carries its whole stack trace,
 * which Maven echoes line by line before its help footer. The reason's tail (its last 20 lines) was
 * that trace and footer alone; it now says what failed.
 */
testIf(missingTool('mvn'))(
  'a crashed test fork’s reason says why, not Maven’s stack trace',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-crash-'));
    const chain = await sumChain(dir, 'exits', {
      tests: '  @Test void adds() { assertEquals(3, Sum.of(1, 2)); System.exit(3); }\n',
    });
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold.reason).toMatchObject({ kind: 'tests-not-runnable' });
    expect(gold.reason?.tail).toContain('System.exit called');
  },
  1_200_000,
);
