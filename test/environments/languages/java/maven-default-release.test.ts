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

/** A POM of 2012 that names no Java release and pins no compiler plugin: Maven's default binding compiles it for Java 5. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>tally</artifactId><version>1.0</version>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
</project>
`;
const code = (body: string) => `package m;\n\npublic class Tally {\n${body}}\n`;
const junit = (body: string) =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class TallyTest {\n${body}}\n`;

/**
 * A POM that names no release compiles at its compiler plugin's default, which before
 * maven-compiler-plugin 3.9 (Maven 3.8's default binding is 3.1) is Java 5: javac 17 refuses it
 * ("Source option 5 is no longer supported"), so the POM is compiled through the wrapper too.
 */
testIf(missingTool('mvn'))(
  "a POM that names no Java release compiles on JDK 17 at the compiler plugin's default",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'tally'), {
      'pom.xml': POM,
      'src/main/java/m/Tally.java': code('  public static int add(int a, int b) { return a - b; }\n'),
      'src/test/java/m/TallyTest.java': junit('  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n'),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Tally.java': code('  public static int add(int a, int b) { return a + b; }\n'),
      'src/test/java/m/TallyTest.java': junit(
        '  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n  @Test public void adds() { assertEquals(3, Tally.add(1, 2)); }\n',
      ),
    });
    const chain = repo.chain('gen/tally-default-release', [fix]);
    const environments = removedAfterAll(testEnvironments(docker));

    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.TallyTest#adds'],
      passToPass: ['m.TallyTest#zero'],
    });
    const env = await environments.forStage(chain, 0);
    expect(env.recipe.toolchain.note).toMatch(/Java 5 \(its compiler plugin's default: it names no release\)/);
  },
  1_200_000,
);
