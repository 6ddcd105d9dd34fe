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

/** JUnit 4 tests run by JUnit Vintage 5.6 on the JUnit Platform, through Surefire 2.22. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>suites</artifactId><version>1.0</version>
  <properties><maven.compiler.source>8</maven.compiler.source><maven.compiler.target>8</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.vintage</groupId><artifactId>junit-vintage-engine</artifactId><version>5.6.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version></plugin>
  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
/**
 * A JUnit 3 class whose suite() is built at run time, as BulkTest-style suites are: suites by name (their
 * descriptions have no class), one of them holding a test of another class, which a filter by this
 * class cannot take out of it (JUnit 3's runner filters the outer suite's members whole).
 */
const suite = (methods: string[]) =>
  `package m;\n\nimport junit.framework.Test;\nimport junit.framework.TestCase;\nimport junit.framework.TestSuite;\n\n` +
  `public class SumTest extends TestCase {\n  public SumTest(String name) { super(name); }\n` +
  `  public static Test suite() {\n    TestSuite inner = new TestSuite("sums");\n` +
  methods.map((m) => `    inner.addTest(new SumTest("${m}"));\n`).join('') +
  `    inner.addTest(new SumCheck("testOrder"));\n    TestSuite all = new TestSuite("all");\n    all.addTest(inner);\n    return all;\n  }\n` +
  '  public void testZero() { assertEquals(0, Sum.of(0, 0)); }\n' +
  (methods.includes('testAdds') ? '  public void testAdds() { assertEquals(3, Sum.of(1, 2)); }\n' : '') +
  '}\n';

/**
 * JUnit Vintage 5.6's warning that a suite could not be filtered completely fails as it is built (a
 * suite without a class), and Surefire filters by the PR's classes: the fork crashed before and after
 * the change, and the stage was tests-not-runnable. The warning is off, and the suite's tests run.
 */
testIf(missingTool('mvn'))(
  'a JUnit 3 suite run by JUnit Vintage through a class filter runs its tests',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-vintage-'));
    const repo = await ChainRepo.create(join(dir, 'suites'), {
      'pom.xml': POM,
      'src/main/java/m/Sum.java': code('-'),
      'src/test/java/m/SumTest.java': suite(['testZero']),
      'src/test/java/m/SumCheck.java':
        'package m;\n\nimport junit.framework.TestCase;\n\npublic class SumCheck extends TestCase {\n' +
        '  public SumCheck(String name) { super(name); }\n  public void testOrder() { assertEquals(Sum.of(1, 2), Sum.of(1, 2)); }\n}\n',
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': code('+'),
      'src/test/java/m/SumTest.java': suite(['testZero', 'testAdds']),
    });
    const chain = repo.chain('gen/suites', [fix]);
    const gold = await goldTestsFor(goldDeps(docker, dir, removedAfterAll(testEnvironments(docker))), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#testAdds'] });
    expect(gold.passToPass).toContain('m.SumTest#testZero');
  },
  1_200_000,
);
