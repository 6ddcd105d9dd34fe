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

/** Sum has a main, which `silent` starts in a JVM of the test JVM's own JDK, asserting it printed nothing on stderr. */
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n  public static void main(String[] args) {}\n}\n`;
const silent =
  '  @Test void silent() throws Exception {\n' +
  '    Process p = new ProcessBuilder(System.getProperty("java.home") + "/bin/java", "-cp", "target/classes", "m.Sum").start();\n' +
  '    String err = new String(p.getErrorStream().readAllBytes());\n' +
  '    assertEquals(0, p.waitFor());\n' +
  '    assertEquals("", err);\n' +
  '  }\n';

/**
 * Every JVM that reads JDK_JAVA_OPTIONS says so on stderr ("NOTE: Picked up JDK_JAVA_OPTIONS: …"): the
 * image set it for every project (a logging configuration for JUnit Vintage), and then for every POM
 * for a Java before 16 (the JDK's packages opened), so a test of what a child JVM prints failed before
 * and after every change, where upstream's passed. Whatever the POM's Java, a child JVM prints what it
 * prints upstream.
 */
for (const release of ['17', '11'])
  testIf(missingTool('mvn'))(
    `a test that asserts a child JVM's stderr is empty passes, for a POM of Java ${release}`,
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-child-jvm-'));
      const chain = await sumChain(dir, 'launcher', {
        release,
        code,
        kept: silent,
        tests:
          '  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      });
      const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
      expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'] });
      expect(gold.passToPass).toEqual(['m.SumTest#silent', 'm.SumTest#zero']);
    },
    1_200_000,
  );
