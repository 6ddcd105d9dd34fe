import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeImages } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const images: string[] = [];

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
  await removeImages(docker, images);
});

/** JUnit 5, and maven-bundle-plugin 4.1.0's `manifest` bound at process-classes, as Apache's parents of 2019 bind it. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>bundled</artifactId><version>1.0</version>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
    <plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>4.1.0</version>
      <executions><execution><id>bundle-manifest</id><phase>process-classes</phase><goals><goal>manifest</goal></goals></execution></executions></plugin>
  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (body: string) =>
  `package m;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass SumTest {\n${body}}\n`;

/**
 * maven-bundle-plugin 4.x has no switch that skips its `manifest` goal, and its bnd fails on JDK 17
 * (FELIX-6259: a ConcurrentModificationException), so the fetch, the build and every test run failed.
 * The Maven extension every run loads (skip-extension.ts) takes the goal out of the build: the PR's test
 * verifies, and no run wrote the OSGi manifest.
 */
testIf(missingTool('mvn'))(
  "a POM with maven-bundle-plugin 4.x's manifest goal builds and tests on JDK 17",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-bundle-'));
    const repo = await ChainRepo.create(join(dir, 'bundled'), {
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
    const chain = repo.chain('gen/bundle-manifest-4', [fix]);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    images.push(...environments.built.map((b) => b.image));
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
  },
  1_200_000,
);
