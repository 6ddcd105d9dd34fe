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

/** A POM whose Surefire configuration names the one test class its build runs, as JUnit 4's names its AllTests suite. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>chosen</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version>
      <configuration><test>m/SmokeTest.java</test></configuration></plugin>
  </plugins></build>
</project>
`;
const sum = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const junit = (name: string, body: string) =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class ${name} {\n${body}}\n`;

/**
 * A parameter the POM configures takes no property, so `-Dtest` selected nothing: every run ran the
 * POM's SmokeTest, and the PR's SumTest reported nothing. The run's selection now wins.
 */
testIf(missingTool('mvn'))(
  "a POM's own Surefire <test> gives way to the PR's tests",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-selection-'));
    const repo = await ChainRepo.create(join(dir, 'chosen'), {
      'pom.xml': POM,
      'src/main/java/m/Sum.java': sum('-'),
      'src/test/java/m/SumTest.java': junit(
        'SumTest',
        '  @Test public void zero() { assertEquals(0, Sum.of(0, 0)); }\n',
      ),
      'src/test/java/m/SmokeTest.java': junit(
        'SmokeTest',
        '  @Test public void loads() { assertEquals(0, Sum.of(1, 1) * 0); }\n',
      ),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': sum('+'),
      'src/test/java/m/SumTest.java': junit(
        'SumTest',
        '  @Test public void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test public void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      ),
    });
    const chain = repo.chain('gen/chosen', [fix]);
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
  },
  1_200_000,
);
