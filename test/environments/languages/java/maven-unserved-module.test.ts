import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEWER_MAVEN } from '../../../../src/environments/languages/java/maven-dist';
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

/** An artifact no registry has: a module's dependency on it cannot be fetched anywhere. */
const UNSERVED = 'org.chainsmith.unserved:never-published:jar:1.0';
const parent = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>duo</artifactId><version>1.0</version><packaging>pom</packaging>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <modules><module>core</module><module>extra</module></modules>
  <dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency></dependencies>
</project>
`;
const [group, artifact, , version] = UNSERVED.split(':');
const modulePom = (name: string, deps = '') => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>example</groupId><artifactId>duo</artifactId><version>1.0</version></parent>
  <artifactId>${name}</artifactId>${deps ? `\n  <dependencies>${deps}</dependencies>` : ''}
</project>
`;
const code = (pkg: string, op: string) =>
  `package ${pkg};\n\npublic class Sum {\n  public static int of(int a, int b) { return a ${op} b; }\n}\n`;
const test = (pkg: string, body: string) =>
  `package ${pkg};\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n\npublic class SumTest {\n${body}}\n`;
const ZERO = '  @Test public void zero() { assertEquals(0, Sum.of(0, 0)); }\n';
const ADDS = `${ZERO}  @Test public void adds() { assertEquals(3, Sum.of(1, 2)); }\n`;

/**
 * A two-module build whose `extra` module depends on an artifact no registry serves. #1 fixes core's
 * Sum and tests it: core's dependencies are all served, so the stage verifies (before fail-at-end, the
 * one fetch of the whole reactor failed and every stage was dependencies-unresolvable). #2 fixes extra's
 * Sum: its tests need what is missing, and its reason names the artifact.
 */
testIf(missingTool('mvn'))(
  "a module's unserved dependency leaves the other modules' stages verifiable, and names itself on its own",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'duo'), {
      'pom.xml': parent,
      'core/pom.xml': modulePom('core'),
      'core/src/main/java/c/Sum.java': code('c', '-'),
      'core/src/test/java/c/SumTest.java': test('c', ZERO),
      'extra/pom.xml': modulePom(
        'extra',
        `<dependency><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency>`,
      ),
      'extra/src/main/java/e/Sum.java': code('e', '-'),
      'extra/src/test/java/e/SumTest.java': test('e', ZERO),
      NONCE: randomBytes(8).toString('hex'),
    });
    const core = await repo.pr(1, 'Core adds', {
      'core/src/main/java/c/Sum.java': code('c', '+'),
      'core/src/test/java/c/SumTest.java': test('c', ADDS),
    });
    const extra = await repo.pr(2, 'Extra adds', {
      'extra/src/main/java/e/Sum.java': code('e', '+'),
      'extra/src/test/java/e/SumTest.java': test('e', ADDS),
    });
    const chain = repo.chain('gen/duo-unserved', [core, extra]);
    const environments = removedAfterAll(testEnvironments(docker));
    const deps = goldDeps(docker, dir, environments);

    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({
      status: 'verified',
      failToPass: ['c.SumTest#adds'],
      passToPass: ['c.SumTest#zero'],
    });
    const env = await environments.forStage(chain, 0);
    expect(env.manifest.resolution?.unserved?.map((u) => u.name)).toEqual([UNSERVED]);

    const second = await goldTestsFor(deps, chain, 1);
    expect(second.status).not.toBe('verified');
    expect(second.reason?.kind).toBe('dependencies-unresolvable');
    expect(second.reason?.summary).toContain(UNSERVED);
  },
  1_200_000,
);

/** Copies a compiled test class at process-test-classes: a goal that fails where nothing was compiled (the fetch's stub). */
const COPY_CLASS = `<build><plugins><plugin><groupId>com.coderplus.maven.plugins</groupId><artifactId>copy-rename-maven-plugin</artifactId><version>1.0.1</version>
    <executions><execution><id>copy-test-class</id><phase>process-test-classes</phase><goals><goal>copy</goal></goals>
      <configuration><sourceFile>\${project.build.testOutputDirectory}/c/SumTest.class</sourceFile><destinationFile>\${project.build.directory}/SumTest.copy</destinationFile></configuration>
    </execution></executions></plugin></plugins></build>`;

/**
 * A build whose core needs its classes compiled for real (a goal copies a test class) and whose
 * `checks` module's tests do not compile under `mvn test` (as a test-only module that needs another's
 * packaged jar does not). The fetch's real compile fails in `checks` alone: fail-at-end goes on
 * without it, and core's PR verifies (before, the fetch failed and the stage was build-failed).
 */
testIf(missingTool('mvn'))(
  "a module whose tests do not compile leaves the other modules' stages verifiable",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const repo = await ChainRepo.create(join(dir, 'duo'), {
      'pom.xml': parent.replace('<module>extra</module>', '<module>checks</module>'),
      'core/pom.xml': modulePom('core').replace('</project>', `  ${COPY_CLASS}\n</project>`),
      'core/src/main/java/c/Sum.java': code('c', '-'),
      'core/src/test/java/c/SumTest.java': test('c', ZERO),
      'checks/pom.xml': modulePom('checks'),
      'checks/src/test/java/k/PackagedTest.java': 'package k;\n\npublic class PackagedTest extends OnlyInTheJar {}\n',
      NONCE: randomBytes(8).toString('hex'),
    });
    const core = await repo.pr(1, 'Core adds', {
      'core/src/main/java/c/Sum.java': code('c', '+'),
      'core/src/test/java/c/SumTest.java': test('c', ADDS),
    });
    const chain = repo.chain('gen/duo-checks', [core]);
    const environments = removedAfterAll(testEnvironments(docker));
    const deps = goldDeps(docker, dir, environments);

    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({ status: 'verified', failToPass: ['c.SumTest#adds'] });
  },
  1_200_000,
);

/**
 * Fail-at-end never stands in for the newer Maven: `extra` (after core, so skipped while the stub's
 * run fails in core) binds a plugin that requires Maven 3.9. The real compile's run fails there for
 * that alone, and the recipe's Maven 3.9 fallback is built rather than the build going on without
 * `extra`, whose PR would then verify on neither.
 */
testIf(missingTool('mvn'))(
  "a module's plugin that needs a newer Maven moves the build to it, not out of the reactor",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-'));
    const rat = `<build><plugins><plugin><groupId>org.apache.rat</groupId><artifactId>apache-rat-plugin</artifactId><version>0.18</version>
      <executions><execution><id>rat-check</id><phase>validate</phase><goals><goal>check</goal></goals></execution></executions></plugin></plugins></build>`;
    const repo = await ChainRepo.create(join(dir, 'duo'), {
      'pom.xml': parent,
      'core/pom.xml': modulePom('core').replace('</project>', `  ${COPY_CLASS}\n</project>`),
      'core/src/main/java/c/Sum.java': code('c', '-'),
      'core/src/test/java/c/SumTest.java': test('c', ZERO),
      'extra/pom.xml': modulePom(
        'extra',
        '<dependency><groupId>example</groupId><artifactId>core</artifactId><version>1.0</version></dependency>',
      ).replace('</project>', `  ${rat}\n</project>`),
      'extra/src/main/java/e/Sum.java': code('e', '-'),
      'extra/src/test/java/e/SumTest.java': test('e', ZERO),
      NONCE: randomBytes(8).toString('hex'),
    });
    const extra = await repo.pr(1, 'Extra adds', {
      'extra/src/main/java/e/Sum.java': code('e', '+'),
      'extra/src/test/java/e/SumTest.java': test('e', ADDS),
    });
    const chain = repo.chain('gen/duo-newer', [extra]);
    const environments = removedAfterAll(testEnvironments(docker));
    const deps = goldDeps(docker, dir, environments);

    expect(await goldTestsFor(deps, chain, 0)).toMatchObject({ status: 'verified', failToPass: ['e.SumTest#adds'] });
    expect((await environments.forStage(chain, 0)).recipe.origin).toBe(`java-maven-${NEWER_MAVEN}`);
  },
  1_200_000,
);
