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

/** javac's options of a POM of JDK 8's years: every lint warning an error, and doclint. */
const PLUGIN = `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.8.1</version>
      <configuration><compilerArgs><arg>-Xlint:all</arg><arg>-Werror</arg><arg>-Xdoclint:accessibility,reference,syntax</arg></compilerArgs></configuration>
    </plugin>`;
/** A heading JDK 8's doclint let pass and JDK 17's finds out of sequence; a constructor JDK 16 marked for removal. */
const code = (op: string) =>
  'package m;\n\n/**\n * Sums.\n *\n * <h3>Usage</h3>\n * Sum.of(1, 2)\n */\npublic class Sum {\n' +
  `  public static int of(int a, int b) { return new Integer(a ${op} b); }\n}\n`;

/**
 * javac 17's lints and doclint check more than JDK 8's did: the POM's -Werror and -Xdoclint failed the
 * compile before and after the change (build-failed). Both are taken out, and the tests run.
 */
testIf(missingTool('mvn'))(
  "a POM whose javac options fail on javac 17's new lint and doclint findings compiles",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-lint-'));
    const chain = await sumChain(dir, 'linted', {
      release: '1.8',
      junit: 4,
      code,
      plugin: PLUGIN,
      tests:
        '  @Test public void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test public void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
    });
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.SumTest#adds'],
      passToPass: ['m.SumTest#zero'],
    });
  },
  1_200_000,
);
