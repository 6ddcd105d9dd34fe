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

const CASES = 30_000;

const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>many</artifactId><version>1.0</version>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
  </plugins></build>
</project>
`;
const code = (op: string) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (body: string) =>
  'package m;\n\nimport java.util.stream.IntStream;\nimport org.junit.jupiter.api.Test;\n' +
  'import org.junit.jupiter.params.ParameterizedTest;\nimport org.junit.jupiter.params.provider.MethodSource;\n' +
  `import static org.junit.jupiter.api.Assertions.assertEquals;\n\nclass SumTest {\n${body}}\n`;

/**
 * A suite whose per-test report (Surefire's, one line a test) runs past a million characters, as
 * commons-collections4's 70,000 tests do: the run before the change must be read whole, or every test
 * its cut middle named is left out of PASS_TO_PASS (and a FAIL_TO_PASS test there is lost).
 */
testIf(missingTool('mvn'))(
  "a PR's tests whose report runs past a million characters are read whole",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-many-'));
    const repo = await ChainRepo.create(join(dir, 'many'), {
      'pom.xml': pom,
      'src/main/java/m/Sum.java': code('-'),
      'src/test/java/m/SumTest.java': test('  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n'),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Add, not subtract', {
      'src/main/java/m/Sum.java': code('+'),
      'src/test/java/m/SumTest.java': test(
        `  static IntStream values() { return IntStream.range(0, ${CASES}); }\n` +
          '  @ParameterizedTest @MethodSource("values") void same(int a) { assertEquals(a, Sum.of(a, 0)); }\n' +
          '  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n',
      ),
    });
    const chain = repo.chain('gen/many', [fix]);
    const environments = testEnvironments(docker);
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    images.push(...environments.built.map((b) => b.image));
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], brokenOnGold: [] });
    expect(gold.passToPass).toHaveLength(CASES);
  },
  1_200_000,
);
