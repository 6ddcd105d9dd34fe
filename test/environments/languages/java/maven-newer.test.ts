import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEWER_MAVEN } from '../../../../src/environments/languages/java/maven-dist';
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

/** JUnit 5, and Apache RAT 0.18's check bound to the build, as Apache's parents of 2025 bind it: that plugin requires Maven 3.9. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>rat</artifactId><version>1.0</version>
  <properties><maven.compiler.release>11</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
    <plugin><groupId>org.apache.rat</groupId><artifactId>apache-rat-plugin</artifactId><version>0.18</version>
      <executions><execution><id>rat-check</id><phase>validate</phase><goals><goal>check</goal></goals></execution></executions></plugin>
  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (body: string) =>
  `package m;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass SumTest {\n${body}}\n`;

/**
 * A POM whose plugin refuses Debian's Maven 3.8 ("requires Maven version 3.9"): the fetch says its
 * toolchain is too old, and the recipe's fallback, the same on Maven NEWER_MAVEN fetched from the
 * host's Maven repositories, builds the environment, where the PR's test verifies offline.
 */
testIf(missingTool('mvn'))(
  'a POM whose plugin requires Maven 3.9 is fetched, built and tested on the newer Maven',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-newer-'));
    const repo = await ChainRepo.create(join(dir, 'rat'), {
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
    const chain = repo.chain('gen/rat-maven39', [fix]);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    images.push(...environments.built.map((b) => b.image));
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
    const env = await environments.forStage(chain, 0);
    expect(env.recipe.origin).toBe(`java-maven-${NEWER_MAVEN}`);
    expect(env.manifest.resolution?.tool).toBe(`Apache Maven ${NEWER_MAVEN}`);
  },
  1_200_000,
);
