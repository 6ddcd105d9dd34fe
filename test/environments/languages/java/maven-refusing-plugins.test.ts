import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageError } from '../../../../src/errors';
import { NEWER_MAVEN } from '../../../../src/environments/languages/java/maven-dist';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { sumChain } from '../../../support/java-project';
import { missingTool, testIf } from '../../../support/preconditions';

/**
 * Plugins that refuse this host's Maven or JDK as Debian ships them, each bound to a build the way
 * Apache's parent POMs bind it: a one-PR chain of a project that fixes Sum.of and tests it must still
 * verify.
 */
const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/** SumTest as the PR leaves it: `zero` passes before and after, `adds` only after. */
const TESTS =
  '  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n  @Test void adds() { assertEquals(3, Sum.of(1, 2)); }\n';

/** The project with `plugin` (and `dependency`) and its PR (with SumTest's `tests`) gold-validated: the record, or the StageError that stopped it. */
async function goldWith(name: string, plugin: string, dependency = '', tests = TESTS) {
  const dir = await mkdtemp(join(tmpdir(), `chainsmith-maven-${name}-`));
  const chain = await sumChain(dir, name, { tests, plugin, dependency });
  const environments = removedAfterAll(testEnvironments(docker));
  const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0).catch((err: unknown) => {
    if (err instanceof StageError) return err;
    throw err;
  });
  return { gold, environments, chain };
}

/** The project with `plugin` (and `dependency`, and SumTest's `tests`) verifies; returns the stage's environment. */
async function validateWith(name: string, plugin: string, dependency = '', tests = TESTS) {
  const { gold, environments, chain } = await goldWith(name, plugin, dependency, tests);
  expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
  return environments.forStage(chain, 0);
}

/**
 * Apache RAT 0.18 requires Maven 3.9: the fetch on Debian's 3.8 says its toolchain is too old, and the
 * recipe's fallback, the same on Maven NEWER_MAVEN from the host's Maven repositories, is built.
 */
testIf(missingTool('mvn'))(
  'a POM whose plugin requires Maven 3.9 is fetched, built and tested on the newer Maven',
  async () => {
    const env = await validateWith(
      'rat',
      `<plugin><groupId>org.apache.rat</groupId><artifactId>apache-rat-plugin</artifactId><version>0.18</version>
      <executions><execution><id>rat-check</id><phase>validate</phase><goals><goal>check</goal></goals></execution></executions></plugin>`,
    );
    expect(env.recipe.origin).toBe(`java-maven-${NEWER_MAVEN}`);
    expect(env.manifest.resolution?.tool).toBe(`Apache Maven ${NEWER_MAVEN}`);
  },
  1_200_000,
);

/**
 * maven-bundle-plugin 4.x has no switch that skips its `manifest` goal, and its bnd fails on JDK 17
 * (FELIX-6259: a ConcurrentModificationException) in the fetch, the build and every test run. The
 * Maven extension every run loads (skip-extension.ts) takes the goal out of the build.
 */
testIf(missingTool('mvn'))(
  "a POM with maven-bundle-plugin 4.x's manifest goal builds and tests on JDK 17",
  async () => {
    const env = await validateWith(
      'bundled',
      `<plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>4.1.0</version>
      <executions><execution><id>bundle-manifest</id><phase>process-classes</phase><goals><goal>manifest</goal></goals></execution></executions></plugin>`,
    );
    expect(env.recipe.origin).toBe('java-maven');
  },
  1_200_000,
);

/**
 * maven-artifact-plugin's check-buildplan (bound at validate, as Apache's parents bind it) resolves
 * every plugin up to `deploy`: one bound at verify that no registry serves failed `mvn test`, whose
 * runs never load it. The extension every run loads takes the goal out of the build.
 */
testIf(missingTool('mvn'))(
  'a POM checking its build plan with a later plugin no registry serves builds and tests',
  async () => {
    await validateWith(
      'buildplan',
      `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-artifact-plugin</artifactId><version>3.6.1</version>
      <executions><execution><id>check-buildplan</id><phase>validate</phase><goals><goal>check-buildplan</goal></goals></execution></executions></plugin>
    <plugin><groupId>org.chainsmith.unserved</groupId><artifactId>never-published-maven-plugin</artifactId><version>1.0</version>
      <executions><execution><id>never</id><phase>verify</phase><goals><goal>check</goal></goals></execution></executions></plugin>`,
    );
  },
  1_200_000,
);

/**
 * Error Prone as the compiler (plexus-compiler-javac-errorprone, as projects configured it until about
 * 2019) bundles a javac of JDK 9 that cannot read JDK 17's class files: nothing compiled. The extension
 * every run loads (skip-extension.ts) compiles with the plugin's own javac instead.
 */
testIf(missingTool('mvn'))(
  "a POM compiling through Error Prone's plexus compiler builds and tests on JDK 17",
  async () => {
    await validateWith(
      'errorprone',
      `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.8.0</version>
      <configuration><compilerId>javac-with-errorprone</compilerId><forceJavacCompilerUse>true</forceJavacCompilerUse></configuration>
      <dependencies><dependency><groupId>org.codehaus.plexus</groupId><artifactId>plexus-compiler-javac-errorprone</artifactId><version>2.8.2</version></dependency>
      <dependency><groupId>com.google.errorprone</groupId><artifactId>error_prone_core</artifactId><version>2.3.1</version></dependency></dependencies></plugin>`,
    );
  },
  1_200_000,
);

/**
 * A dependency whose POM declares the JDK's tools.jar as a system dependency (compile-testing 0.9:
 * `com.sun:tools` at `${java.home}/../lib/tools.jar`), which JDK 9 and later do not ship: Maven refused
 * the project. The extension excludes it; its classes are in the JDK's modules.
 */
testIf(missingTool('mvn'))(
  "a dependency that declares the JDK's tools.jar resolves and tests on JDK 17",
  async () => {
    await validateWith(
      'toolsjar',
      '',
      '<dependency><groupId>com.google.testing.compile</groupId><artifactId>compile-testing</artifactId><version>0.9</version><scope>test</scope></dependency>',
    );
  },
  1_200_000,
);

/**
 * A test that reflects into the JDK's own packages, as Mockito 1's cglib does (ClassLoader.defineClass),
 * and calls javac's JavacTool, as annotation-processor test kits of JDK 8's day did: JDK 17 denies both
 * (InaccessibleObjectException, IllegalAccessError) where the JDKs a POM for Java 11 was written for
 * allowed them. Every JVM of such a project opens them (open-packages.ts), so the test fails before the
 * fix for the fix's reason and passes after.
 */
testIf(missingTool('mvn'))(
  "a POM for a Java before 16 whose tests reflect into the JDK's and javac's packages verifies on JDK 17",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-reflects-'));
    const chain = await sumChain(dir, 'reflects', {
      tests:
        '  @Test void zero() { assertEquals(0, Sum.of(0, 0)); }\n' +
        '  @Test void adds() throws Exception {\n' +
        '    Method define = ClassLoader.class.getDeclaredMethod("defineClass", String.class, byte[].class, int.class, int.class);\n' +
        '    define.setAccessible(true);\n' +
        '    Class.forName("com.sun.tools.javac.api.JavacTool").getMethod("create").invoke(null);\n' +
        '    assertEquals(3, Sum.of(1, 2));\n' +
        '  }\n',
      imports: ['java.lang.reflect.Method'],
    });
    const environments = removedAfterAll(testEnvironments(docker));
    const gold = await goldTestsFor(goldDeps(docker, dir, environments), chain, 0);
    expect(gold).toMatchObject({ status: 'verified', failToPass: ['m.SumTest#adds'], passToPass: ['m.SumTest#zero'] });
  },
  1_200_000,
);

/**
 * A test source with a long call chain, as builders' tests have: javac 17 recurses once per call and
 * overflowed a 1 MB stack (StackOverflowError in Attr) at the base and the merge alike, where the javac
 * of the POM's day compiled it. Maven's JVM has deeper stacks (settings.ts), so the PR verifies.
 */
testIf(missingTool('mvn'))(
  'a test source with a call chain of a thousand calls compiles and verifies',
  async () => {
    await validateWith(
      'chained',
      '',
      '',
      TESTS + `  String built() { return new StringBuilder()${'.append(1)'.repeat(1000)}.toString(); }\n`,
    );
  },
  1_200_000,
);

/**
 * A goal that fails the fetch for a cause of its own (here Ant's `<fail>`, as a goal that refuses this
 * JDK would): the stage's reason is the build's, naming the goal, its execution and its complaint,
 * not a dependency that could not be fetched.
 */
testIf(missingTool('mvn'))(
  "a plugin goal that fails the fetch is the stage's build-failed reason, naming the goal",
  async () => {
    const { gold } = await goldWith(
      'refusing',
      `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-antrun-plugin</artifactId><version>3.1.0</version>
      <executions><execution><id>refuse</id><phase>validate</phase><goals><goal>run</goal></goals>
      <configuration><target><fail message="this JDK is not supported"/></target></configuration></execution></executions></plugin>`,
    );
    const reason = gold instanceof StageError ? gold.reason : undefined;
    expect(reason).toMatchObject({ kind: 'build-failed', exitCode: 1 });
    expect(reason?.summary).toMatch(
      /failed in org\.apache\.maven\.plugins:maven-antrun-plugin:3\.1\.0:run \(refuse\) on project refusing: .*this JDK is not supported$/,
    );
    expect(reason?.command).toMatch(/^mvn -B test /);
  },
  600_000,
);
