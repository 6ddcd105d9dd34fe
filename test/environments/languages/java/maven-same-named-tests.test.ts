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

const parent = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>pair</artifactId><version>1.0</version><packaging>pom</packaging>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <modules><module>plain</module><module>fancy</module></modules>
  <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency></dependencies>
</project>
`;
const modulePom = (name: string) => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>example</groupId><artifactId>pair</artifactId><version>1.0</version></parent>
  <artifactId>${name}</artifactId>
</project>
`;
/** m.Sum, with `twice` where `withTwice`. */
const sum = (withTwice: boolean) =>
  `package m;\n\npublic class Sum {\n  public static int of(int a, int b) { return a + b; }\n` +
  `${withTwice ? '  public static int twice(int a) { return of(a, a); }\n' : ''}}\n`;
/** m.SumTest with `zero`, and `twice` where `withTwice`. */
const sumTest = (withTwice: boolean) =>
  'package m;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class SumTest {\n' +
  '  @Test public void zero() { assertEquals(0, Sum.of(0, 0)); }\n' +
  `${withTwice ? '  @Test public void twice() { assertEquals(4, Sum.twice(2)); }\n' : ''}}\n`;

/**
 * Two modules with a test class of the same name, `m.SumTest`, each with a `twice` test (the way a
 * library's bindings each carry the same test). The PR gives `fancy` its `twice` and the test: before
 * it, fancy's test does not compile and writes no report, while `plain`'s SumTest#twice, selected by the
 * same `-Dtest=m.SumTest`, passes. Read by class and method alone, the PR's test passed before and
 * after (no-verifying-test); only the module of the PR's test file counts now.
 */
testIf(missingTool('mvn'))(
  "another module's same-named test class does not stand in for the PR's",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'pair'), {
      'pom.xml': parent,
      'plain/pom.xml': modulePom('plain'),
      'plain/src/main/java/m/Sum.java': sum(true),
      'plain/src/test/java/m/SumTest.java': sumTest(true),
      'fancy/pom.xml': modulePom('fancy'),
      'fancy/src/main/java/m/Sum.java': sum(false),
      'fancy/src/test/java/m/SumTest.java': sumTest(false),
      NONCE: randomBytes(8).toString('hex'),
    });
    const pr = await repo.pr(1, 'Fancy doubles', {
      'fancy/src/main/java/m/Sum.java': sum(true),
      'fancy/src/test/java/m/SumTest.java': sumTest(true),
    });
    const chain = repo.chain('gen/pair-same-named', [pr]);
    const deps = goldDeps(docker, dir, removedAfterAll(testEnvironments(docker)));

    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: expect.arrayContaining(['m.SumTest#twice']),
    });
  },
  1_200_000,
);
