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

/** A POM of 2010: Java 5 in the compiler plugin's own configuration (no property overrides it), JUnit 4. */
const pom = (extra = '') => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>tally</artifactId><version>1.0</version>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>${extra}
  </dependencies>
  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.5.1</version>
    <configuration><source>1.5</source><target>1.5</target><encoding>UTF-8</encoding></configuration></plugin></plugins></build>
</project>
`;
const COMMONS =
  '\n    <dependency><groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId><version>3.12.0</version><scope>test</scope></dependency>';
const code = (body: string) => `package m;\n\npublic class Tally {\n${body}}\n`;
const junit = (body: string, imports = '') =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n${imports}\npublic class TallyTest {\n${body}}\n`;

/**
 * Two PRs of a Maven project that compiles for Java 5, which javac 17 refuses: #1 fixes a method and
 * tests it; #2 adds commons-lang3 to the POM for a new test that uses it (its merge needs a package
 * its base never fetched). Both verify: the offline image compiles through the wrapper, and holds what
 * the merge's POM needs as well as the base's. Maven fetches from the registry the host's settings name.
 */
testIf(missingTool('mvn'))(
  "a POM for Java 5 compiles on JDK 17, and a PR's new test dependency is there offline after its change",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'tally'), {
      'pom.xml': pom(),
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
    const shout = await repo.pr(2, 'Shout', {
      'pom.xml': pom(COMMONS),
      'src/main/java/m/Tally.java': code(
        '  public static int add(int a, int b) { return a + b; }\n  public static String shout(String s) { return s.toUpperCase(); }\n',
      ),
      'src/test/java/m/ShoutTest.java': `package m;\n\nimport org.apache.commons.lang3.StringUtils;\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class ShoutTest {\n  @Test public void shouts() { assertEquals(StringUtils.upperCase("hi"), Tally.shout("hi")); }\n}\n`,
    });
    const chain = repo.chain('gen/tally-java5', [fix, shout]);
    const environments = removedAfterAll(testEnvironments(docker));
    const deps = goldDeps(docker, dir, environments);

    const first = await goldTestsFor(deps, chain, 0);
    expect(first).toMatchObject({
      status: 'verified',
      failToPass: ['m.TallyTest#adds'],
      passToPass: ['m.TallyTest#zero'],
    });
    const env = await environments.forStage(chain, 0);
    expect(env.recipe.toolchain.note).toMatch(/Java 5, which JDK 17 no longer takes/);

    const second = await goldTestsFor(deps, chain, 1);
    expect(second).toMatchObject({ status: 'verified', failToPass: ['m.ShoutTest#shouts'] });
    const merged = await environments.forStage(chain, 1);
    expect(merged.manifest.resolution?.packages.map((p) => p.name)).toContain('org.apache.commons:commons-lang3');
    // Its POM's new dependency is in the repository's store: the image, the JDK and the wrapper, is the first stage's.
    expect(merged.image).toBe(env.image);
  },
  1_200_000,
);
