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

const CASES = 30_000;

/**
 * A suite whose per-test report (Surefire's, one line a test) runs past a million characters, as
 * commons-collections4's 70,000 tests do: the run before the change must be read whole, or every test
 * its cut middle named is left out of PASS_TO_PASS (and a FAIL_TO_PASS test there is lost).
 */
testIf(missingTool('mvn'))(
  "a PR's tests whose report runs past a million characters are read whole",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-many-'));
    const chain = await sumChain(dir, 'many', {
      tests:
        `  static IntStream values() { return IntStream.range(0, ${CASES}); }\n` +
        '  @ParameterizedTest @MethodSource("values") void same(int a) { assertEquals(a, Sum.of(a, 0)); }\n' +
        '  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      imports: [
        'java.util.stream.IntStream',
        'org.junit.jupiter.params.ParameterizedTest',
        'org.junit.jupiter.params.provider.MethodSource',
      ],
    });
    const environments = removedAfterAll(testEnvironments(docker));
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], brokenOnGold: [] });
    expect(gold.passToPass).toHaveLength(CASES);
  },
  1_200_000,
);
