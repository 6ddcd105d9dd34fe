import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/** A POM of JDK 8's years whose javac turns every lint warning into an error and runs doclint. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>linted</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.8.1</version>
      <configuration><compilerArgs><arg>-Xlint:all</arg><arg>-Werror</arg><arg>-Xdoclint:accessibility,reference,syntax</arg></compilerArgs></configuration>
    </plugin>
  </plugins></build>
</project>
`;
/** A heading JDK 8's doclint let pass and JDK 17's finds out of sequence; a constructor JDK 16 marked for removal. */
const code = (op: string) =>
  'package m;\n\n/**\n * Sums.\n *\n * <h3>Usage</h3>\n * Sum.of(1, 2)\n */\npublic class Sum {\n' +
  `  public static Integer of(int a, int b) { return new Integer(a ${op} b); }\n}\n`;
const test = (body: string) =>
  `package m;\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\npublic class SumTest {\n${body}}\n`;

/**
 * javac 17's lints and doclint check more than JDK 8's did: the POM's -Werror and -Xdoclint failed the
 * compile before and after the change (build-failed). Both are taken out, and the tests run.
 */
testIf(missingTool('mvn'))(
  "a POM whose javac options fail on javac 17's new lint and doclint findings compiles",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-lint-'));
    const repo = await ChainRepo.create(join(dir, 'linted'), {
      'pom.xml': POM,
      'src/main/java/m/Sum.java': code('-'),
      'src/test/java/m/SumTest.java': test('  @Test public void zero() { assertEquals(0, (int) Sum.of(0, 0)); }\n'),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': code('+'),
      'src/test/java/m/SumTest.java': test(
        '  @Test public void zero() { assertEquals(0, (int) Sum.of(0, 0)); }\n  @Test public void adds() { assertEquals(3, (int) Sum.of(1, 2)); }\n',
      ),
    });
    const chain = repo.chain('gen/linted', [fix]);
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.SumTest#adds'],
      passToPass: ['m.SumTest#zero'],
    });
  },
  1_200_000,
);
