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
 * A PR's test that outlasts the run's limit, as a release's dozen ZooKeeper-backed test classes
 * (Apache Curator's) do: Maven's console goes to a file, so the stopped run printed nothing and its
 * reason said only that it timed out. Its tail now shows where Maven was.
 */
testIf(missingTool('mvn'))(
  "a Maven run stopped at its time limit keeps its log's last lines in the stage's reason",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-timeout-'));
    const chain = await sumChain(dir, 'slow', {
      tests:
        '  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n' +
        '  @Test void waits() throws InterruptedException { Thread.sleep(3_600_000); }\n',
    });
    const environments = removedAfterAll(testEnvironments(docker));
    const gold = await goldTestsFor({ ...goldDeps(docker, dir, environments), timeoutSeconds: 120 }, chain, 0);
    expect(gold.reason).toMatchObject({ kind: 'timeout', exitCode: 124 });
    expect(gold.reason?.tail).toMatch(/Running m\.SumTest/);
  },
  1_200_000,
);
