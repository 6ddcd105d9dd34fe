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

/* Old Maven defaults: what a POM that pins neither its compiler plugin nor Surefire gets from Maven 3.8. */

/** A POM of 2012 that names no Java release and pins no compiler plugin: Maven's default binding compiles it for Java 5. */
const NO_RELEASE_POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>tally</artifactId><version>1.0</version>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
</project>
`;
const tally = (body: string) => `package m;\n\npublic class Tally {\n${body}}\n`;
const tallyTest = (body: string) =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class TallyTest {\n${body}}\n`;

/**
 * A POM for Java 6 whose compiler configuration forks the javac a property names, as Apache Commons'
 * parent binds them (`<fork>${commons.compiler.fork}</fork>`), set only by profiles for old JDKs.
 */
const OWN_FORK_POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>tally</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.6</maven.compiler.source><maven.compiler.target>1.6</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.8.1</version>
      <configuration><fork>\${old.compiler.fork}</fork><executable>\${old.compiler.javac}</executable></configuration>
    </plugin>
  </plugins></build>
  <profiles><profile><id>java-1.6</id><properties><old.compiler.fork>true</old.compiler.fork><old.compiler.javac>\${JAVA_1_6_HOME}/bin/javac</old.compiler.javac></properties></profile></profiles>
</project>
`;

/**
 * A POM of 2015 that pins no Surefire: Maven 3.8's default binding runs Surefire 2.12.4, which writes
 * a failure's message into its report's attribute with its newlines as they are.
 */
const OLD_SUREFIRE_POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>lines</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
</project>
`;
const lines = (last: string) =>
  `package m;\n\npublic class Lines {\n  public static String two() { return "a\\n${last}"; }\n}\n`;
const linesTest = (body: string) =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class LinesTest {\n${body}}\n`;

/**
 * A repository of `files` whose PR #1 (`title`) changes `changes`, and that one stage's gold validation,
 * with the environments that built it.
 */
async function goldOfOnePr(
  name: string,
  files: Record<string, string>,
  title: string,
  changes: Record<string, string>,
) {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
  const repo = await ChainRepo.create(join(dir, name), { ...files, NONCE: randomBytes(8).toString('hex') });
  const chain = repo.chain(`gen/${name}`, [await repo.pr(1, title, changes)]);
  const environments = removedAfterAll(testEnvironments(docker));
  return { gold: await goldTestsFor(goldDeps(docker, dir, environments), chain, 0), chain, environments };
}

/**
 * A POM that names no release compiles at its compiler plugin's default, which before
 * maven-compiler-plugin 3.9 (Maven 3.8's default binding is 3.1) is Java 5: javac 17 refuses it
 * ("Source option 5 is no longer supported"), so the POM is compiled through the wrapper too.
 */
testIf(missingTool('mvn'))(
  "a POM that names no Java release compiles on JDK 17 at the compiler plugin's default",
  async () => {
    const { gold, chain, environments } = await goldOfOnePr(
      'tally-default-release',
      {
        'pom.xml': NO_RELEASE_POM,
        'src/main/java/m/Tally.java': tally('  public static int add(int a, int b) { return a - b; }\n'),
        'src/test/java/m/TallyTest.java': tallyTest(
          '  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n',
        ),
      },
      'Add, not subtract',
      {
        'src/main/java/m/Tally.java': tally('  public static int add(int a, int b) { return a + b; }\n'),
        'src/test/java/m/TallyTest.java': tallyTest(
          '  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n  @Test public void adds() { assertEquals(3, Tally.add(1, 2)); }\n',
        ),
      },
    );
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

/**
 * The properties that fork javac through the wrapper reach no configuration that sets fork and
 * executable itself: javac 17 compiled in process and refused `-source 1.6`, before and after alike.
 */
testIf(missingTool('mvn'))(
  'a Java 6 POM whose compiler configuration sets its own fork and executable compiles on JDK 17',
  async () => {
    const { gold } = await goldOfOnePr(
      'tally-own-fork',
      {
        'pom.xml': OWN_FORK_POM,
        'src/main/java/m/Tally.java': tally('  public static int add(int a, int b) { return a - b; }\n'),
        'src/test/java/m/TallyTest.java': tallyTest(
          '  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n',
        ),
      },
      'Add, not subtract',
      {
        'src/main/java/m/Tally.java': tally('  public static int add(int a, int b) { return a + b; }\n'),
        'src/test/java/m/TallyTest.java': tallyTest(
          '  @Test public void zero() { assertEquals(0, Tally.add(0, 0)); }\n  @Test public void adds() { assertEquals(3, Tally.add(1, 2)); }\n',
        ),
      },
    );
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.TallyTest#adds'],
      passToPass: ['m.TallyTest#zero'],
    });
  },
  1_200_000,
);

/**
 * A test whose failure message has a newline (JUnit's "expected:<a\n[b]> but was:<a\n[c]>") fails
 * before the PR's change: its report's failure tag ends lines below where it opens, and it is still read as failed.
 */
testIf(missingTool('mvn'))(
  'a failure whose message spans lines in an old Surefire report counts as a failure',
  async () => {
    const { gold } = await goldOfOnePr(
      'lines-surefire',
      {
        'pom.xml': OLD_SUREFIRE_POM,
        'src/main/java/m/Lines.java': lines('c'),
        'src/test/java/m/LinesTest.java': linesTest(
          "  @Test public void starts() { assertEquals('a', Lines.two().charAt(0)); }\n",
        ),
      },
      'The second line is b',
      {
        'src/main/java/m/Lines.java': lines('b'),
        'src/test/java/m/LinesTest.java': linesTest(
          '  @Test public void starts() { assertEquals(\'a\', Lines.two().charAt(0)); }\n  @Test public void two() { assertEquals("a\\nb", Lines.two()); }\n',
        ),
      },
    );
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.LinesTest#two'],
      passToPass: ['m.LinesTest#starts'],
    });
  },
  1_200_000,
);
