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

/** A project for Java 17 (no packages to open for it), JUnit 5 through Surefire 3. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>launcher</artifactId><version>1.0</version>
  <properties><maven.compiler.source>17</maven.compiler.source><maven.compiler.target>17</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n  public static void main(String[] args) {}\n}\n`;
/** `silent` starts Sum's main in a JVM of the test JVM's own JDK and asserts it printed nothing on stderr. */
const test = (body: string) =>
  `package m;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass SumTest {\n` +
  '  @Test void silent() throws Exception {\n' +
  '    Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "-cp", "target/classes", "m.Sum").start();\n' +
  '    String err = new String(p.getErrorStream().readAllBytes());\n' +
  '    assertEquals(0, p.waitFor());\n' +
  '    assertEquals("", err);\n' +
  '  }\n' +
  `${body}}\n`;

/**
 * Every JVM that reads JDK_JAVA_OPTIONS says so on stderr ("NOTE: Picked up JDK_JAVA_OPTIONS: …"): the
 * image set it for every project (a logging configuration for JUnit Vintage), so a test of what a child
 * JVM prints failed before and after every change, where upstream's passed. A project that needs no
 * packages opened gets no variable, and its child JVMs print what they print upstream.
 */
testIf(missingTool('mvn'))(
  "a test that asserts a child JVM's stderr is empty passes",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-child-jvm-'));
    const repo = await ChainRepo.create(join(dir, 'launcher'), {
      'pom.xml': POM,
      'src/main/java/m/Sum.java': code('-'),
      'src/test/java/m/SumTest.java': test('  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n'),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': code('+'),
      'src/test/java/m/SumTest.java': test(
        '  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      ),
    });
    const chain = repo.chain('gen/launcher', [fix]);
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'] });
    expect(gold.passToPass).toEqual(['m.SumTest#silent', 'm.SumTest#zero']);
  },
  1_200_000,
);
