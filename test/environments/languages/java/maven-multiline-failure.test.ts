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

/**
 * A POM of 2015 that pins no Surefire: Maven 3.8's default binding runs Surefire 2.12.4, which writes
 * a failure's message into its report's attribute with its newlines as they are.
 */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>lines</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.12</version><scope>test</scope></dependency>
  </dependencies>
</project>
`;
const code = (last: string) =>
  `package m;\n\npublic class Lines {\n  public static String two() { return "a\\n${last}"; }\n}\n`;
const junit = (body: string) =>
  `package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class LinesTest {\n${body}}\n`;

/**
 * A test whose failure message has a newline (JUnit's "expected:<a\n[b]> but was:<a\n[c]>") fails
 * before the PR's change: its report's failure tag ends lines below where it opens, and it is still read as failed.
 */
testIf(missingTool('mvn'))(
  'a failure whose message spans lines in an old Surefire report counts as a failure',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'lines'), {
      'pom.xml': POM,
      'src/main/java/m/Lines.java': code('c'),
      'src/test/java/m/LinesTest.java': junit(
        "  @Test public void starts() { assertEquals('a', Lines.two().charAt(0)); }\n",
      ),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'The second line is b', {
      'src/main/java/m/Lines.java': code('b'),
      'src/test/java/m/LinesTest.java': junit(
        '  @Test public void starts() { assertEquals(\'a\', Lines.two().charAt(0)); }\n  @Test public void two() { assertEquals("a\\nb", Lines.two()); }\n',
      ),
    });
    const chain = repo.chain('gen/lines-surefire', [fix]);
    const environments = removedAfterAll(testEnvironments(docker));

    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({
      status: 'verified',
      failToPass: ['m.LinesTest#two'],
      passToPass: ['m.LinesTest#starts'],
    });
  },
  1_200_000,
);
