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
 * A test helper of the JDK 8 era that overrides SecurityManager methods JDK 10 removed (as JUnit 4's
 * own MainRunner does), and a test that uses it: compiled with -source/-target on JDK 17, neither
 * compiles, and the module's test compile failed every stage. They are left out, the one that uses the
 * helper in a second round, and the PR's tests run.
 */
testIf(missingTool('mvn'))(
  'test sources the JDK cannot compile are left out and the PR’s tests run',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-uncompilable-'));
    const chain = await sumChain(dir, 'guarded', {
      tests:
        '  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      files: {
        'src/test/java/m/Guard.java':
          'package m;\n\nclass Guard extends SecurityManager {\n  @Override public boolean getInCheck() { return false; }\n}\n',
        'src/test/java/m/GuardTest.java':
          'package m;\n\nimport org.junit.jupiter.api.Test;\n\nclass GuardTest {\n  @Test void free() { new Guard(); }\n}\n',
      },
    });
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
  },
  1_200_000,
);
