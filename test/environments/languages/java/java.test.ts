import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RepoFiles } from '../../../../src/environments/contract';
import { detectJava, javaRelease, RESOLVE_ONLY } from '../../../../src/environments/languages/java/detect';
import { STUB_JAVAC, stubProperties } from '../../../../src/environments/languages/java/stub-javac';
import { propertyArgs, QUICK_JVM } from '../../../../src/environments/languages/java/settings';
import { gitRepoFiles } from '../../../../src/environments/repo-files';
import { missingRealRepo, missingTool, testIf } from '../../../support/preconditions';
import { cloneBundle } from '../../../support/real-repos';
import { fetchContext } from '../../real-repos';

/** JUnit 5 and Surefire 3, as most Maven projects of the last years have them. */
const MINI_POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>mini</artifactId><version>1.0</version>
  <properties><maven.compiler.source>11</maven.compiler.source><maven.compiler.target>11</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin></plugins></build>
</project>
`;

/** antrun at process-classes, failing unless F's class was compiled: the stub's run fails, the real one passes. */
const NEEDS_CLASSES = `<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-antrun-plugin</artifactId><version>3.1.0</version>
  <executions><execution><id>needs-classes</id><phase>process-classes</phase><goals><goal>run</goal></goals>
  <configuration><target><fail message="F was not compiled"><condition><not><available file="\${project.build.outputDirectory}/m/F.class"/></not></condition></fail></target></configuration>
  </execution></executions></plugin>`;

const files = (entries: Record<string, string>): RepoFiles => ({
  rootFiles: new Set(Object.keys(entries)),
  read: async (p) => entries[p],
});

describe('Java recipe', () => {
  it("is detected from pom.xml, modules' POMs included, on Debian's JDK 17", async () => {
    expect(await detectJava(files({ Makefile: '' }))).toBeUndefined();
    const pom =
      '<project><properties><maven.compiler.release>11</maven.compiler.release></properties><modules><module>core</module><module>cli/</module></modules></project>';
    const recipe = await detectJava(files({ 'pom.xml': pom, mvnw: '' }));
    expect(recipe).toMatchObject({
      language: 'java',
      origin: 'java-maven',
      runner: 'maven',
      manifests: ['pom.xml', 'core/pom.xml', 'cli/pom.xml'],
      toolchain: { image: 'java', version: '17' },
    });
    expect(recipe?.toolchain.note).toMatch(/wrapper is not used/);
    // The host's resolver bookkeeping stays out of the store the image's offline Maven reads.
    expect(recipe?.dependencyStore?.leaveOut?.test('_remote.repositories')).toBe(true);
    expect(recipe?.dependencyStore?.leaveOut?.test('junit-4.12.jar')).toBe(false);
  });

  it('says when the POM needs a newer Java than 17', async () => {
    expect(javaRelease('<maven.compiler.source>1.8</maven.compiler.source>')).toBe('8');
    const recipe = await detectJava(
      files({ 'pom.xml': '<project><properties><java.version>21</java.version></properties></project>' }),
    );
    expect(recipe?.toolchain.note).toMatch(/Java 21.*JDK 17/);
  });

  it("builds a POM for a Java past 17 on the host's JDK where it takes that release, and says which", async () => {
    const pom = (release: string) =>
      files({
        'pom.xml': `<project><properties><maven.compiler.release>${release}</maven.compiler.release></properties></project>`,
      });
    const host = { release: '25', prefix: '/opt/jdk-25' };
    const newer = await detectJava(pom('21'), host);
    expect(newer?.toolchain).toEqual({
      image: 'java',
      version: '25',
      prefix: '/opt/jdk-25',
      note: "the POM compiles for Java 21: the host's JDK 25 rather than Debian bookworm's JDK 17",
    });
    expect(newer?.path).toEqual(['/opt/jdk-25/bin']);
    expect(newer?.env.JAVA_HOME).toBe('/opt/jdk-25');
    // On the newer Maven too, whose bin comes first.
    expect(newer?.fallback?.path).toEqual([expect.stringMatching(/maven.*\/bin$/), '/opt/jdk-25/bin']);
    // A PR that raises the release: its base's environment is built for its merge too.
    const raised = await detectJava(pom('17'), host, pom('21'));
    expect(raised?.toolchain).toMatchObject({
      version: '25',
      note: "the PR's POM compiles for Java 21: the host's JDK 25 rather than Debian bookworm's JDK 17",
    });
    // Java 17 and before stay on Debian's JDK; a release past the host's too says the newest here.
    const older = await detectJava(pom('11'), host);
    expect(older?.toolchain).toMatchObject({ version: '17' });
    expect(older?.toolchain.prefix).toBeUndefined();
    expect(older?.env.JAVA_HOME).toBeUndefined();
    const past = await detectJava(pom('26'), host);
    expect(past?.toolchain).toMatchObject({
      version: '17',
      note: "the POM compiles for Java 26; the host's JDK 25 is the newest available",
    });
  });

  it('refuses a Gradle build at fetch time, saying why', async () => {
    const recipe = await detectJava(files({ 'build.gradle.kts': '', gradlew: '' }));
    expect(recipe).toMatchObject({ origin: 'java-gradle', runner: 'exit-code' });
    await expect(recipe!.fetch!(fetchContext('/tmp', new Date()))).rejects.toThrow(
      /Gradle distribution .* no package registry/,
    );
  });

  // jsoup PR #2570 (a default maximum depth for the XML parser).
  const base = 'f2ea9dfe8d99508ccf5ef082c35b9ad8f87eee37';
  testIf(missingRealRepo('jhy+jsoup', 'git'))("is detected from jsoup's own POM at PR #2570's base", async () => {
    const repo = await cloneBundle('jhy+jsoup');
    expect(await detectJava(await gitRepoFiles(repo, base))).toMatchObject({
      origin: 'java-maven',
      runner: 'maven',
      manifests: ['pom.xml'],
      toolchain: { image: 'java' },
    });
  });

  /** The generated project: F and a JUnit 5 test of it; `pom` as given. */
  const miniProject = (pom: string): string => {
    const src = mkdtempSync(join(tmpdir(), 'chainsmith-maven-'));
    mkdirSync(join(src, 'src/main/java/m'), { recursive: true });
    mkdirSync(join(src, 'src/test/java/m'), { recursive: true });
    writeFileSync(join(src, 'pom.xml'), pom);
    writeFileSync(
      join(src, 'src/main/java/m/F.java'),
      'package m;\n\npublic class F {\n  public static int f() { return 1; }\n}\n',
    );
    writeFileSync(
      join(src, 'src/test/java/m/FTest.java'),
      'package m;\n\nimport org.junit.jupiter.api.Test;\n\nclass FTest {\n  @Test void one() { org.junit.jupiter.api.Assertions.assertEquals(1, F.f()); }\n}\n',
    );
    return src;
  };

  /** The project's real `mvn test`, offline on the fetched local repository, in a copy without the fetch's target/. */
  const offlineTest = (src: string, repo: string): { code: number; output: string } => {
    const copy = mkdtempSync(join(tmpdir(), 'chainsmith-maven-offline-'));
    cpSync(join(src, 'pom.xml'), join(copy, 'pom.xml'));
    cpSync(join(src, 'src'), join(copy, 'src'), { recursive: true });
    const run = spawnSync('mvn', ['-o', '-B', `-Dmaven.repo.local=${repo}`, ...propertyArgs(), 'test'], {
      cwd: copy,
      encoding: 'utf8',
      env: { ...process.env, MAVEN_OPTS: QUICK_JVM },
    });
    rmSync(copy, { recursive: true, force: true });
    return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
  };

  testIf(missingTool('mvn'))(
    "fetches a project's plugins, test framework and Surefire's provider into a fresh local repository, compiling nothing",
    async () => {
      // A small generated project: the fetch is real Maven against the registry, without compiling
      // jsoup again. That what it fetches suffices offline is checked here on the project's own
      // `mvn test` and in java-real (jsoup #2570 gold-validated in a container with network none).
      const src = miniProject(MINI_POM);
      const ctx = fetchContext(src, new Date());
      try {
        const resolution = await (await detectJava(files({ 'pom.xml': MINI_POM })))!.fetch!(ctx);
        expect(resolution).toMatchObject({
          ecosystem: 'maven',
          lock: 'none',
          tool: expect.stringMatching(/^Apache Maven 3/),
        });
        const names = resolution.packages.map((p) => p.name);
        expect(names).toContain('org.apache.maven.plugins:maven-compiler-plugin');
        expect(names).toContain('org.junit.jupiter:junit-jupiter-api');
        const provider = resolution.packages.find(
          (p) => p.name === 'org.apache.maven.surefire:surefire-junit-platform',
        )!;
        expect(provider).toBeDefined();
        const jar = join(
          ctx.depsDir,
          'm2/org/apache/maven/surefire/surefire-junit-platform',
          provider.version,
          `surefire-junit-platform-${provider.version}.jar`,
        );
        expect(existsSync(jar)).toBe(true);
        // The stub compiled nothing of the project's (work left out)...
        expect(existsSync(join(src, 'target/classes/m/F.class'))).toBe(false);
        expect(existsSync(join(src, 'target/test-classes/m/FTest.class'))).toBe(false);
        expect(ctx.lines.join('\n')).not.toMatch(/real compile/);
        // ...and the real compile and test run find all they need offline.
        const offline = offlineTest(src, join(ctx.depsDir, 'm2'));
        expect(offline.output).toMatch(/Tests run: 1, Failures: 0, Errors: 0/);
        expect(offline.code).toBe(0);
        // The image build's proof (the stub, offline) passes on that store and fails where it lacks Surefire's provider.
        const stub = join(ctx.depsDir, 'stub-javac');
        writeFileSync(stub, STUB_JAVAC, { mode: 0o755 });
        const proof = () =>
          spawnSync(
            'mvn',
            [
              '-o',
              '-B',
              `-Dmaven.repo.local=${join(ctx.depsDir, 'm2')}`,
              ...propertyArgs(stubProperties(stub)),
              ...RESOLVE_ONLY.split(' ').map((a) => a.replace(/^'|'$/g, '')),
            ],
            { cwd: src, encoding: 'utf8', env: { ...process.env, MAVEN_OPTS: QUICK_JVM } },
          );
        rmSync(join(src, 'target'), { recursive: true, force: true });
        expect(proof().status).toBe(0);
        expect(existsSync(join(src, 'target/classes/m/F.class'))).toBe(false);
        rmSync(dirname(dirname(jar)), { recursive: true, force: true });
        const missing = proof();
        expect(`${missing.stdout}`).toMatch(/surefire-junit-platform/);
        expect(missing.status).not.toBe(0);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingTool('mvn'))(
    'fetches again with the real compile where the build fails without the classes, and that suffices offline',
    async () => {
      const pom = MINI_POM.replace('</plugins>', `${NEEDS_CLASSES}</plugins>`);
      const src = miniProject(pom);
      const ctx = fetchContext(src, new Date());
      try {
        const resolution = await (await detectJava(files({ 'pom.xml': pom })))!.fetch!(ctx);
        expect(ctx.lines.join('\n')).toMatch(/resolving again with the real compile/);
        expect(existsSync(join(src, 'target/classes/m/F.class'))).toBe(true);
        expect(resolution.packages.map((p) => p.name)).toContain('org.apache.maven.surefire:surefire-junit-platform');
        const offline = offlineTest(src, join(ctx.depsDir, 'm2'));
        expect(offline.output).toMatch(/Tests run: 1, Failures: 0, Errors: 0/);
        expect(offline.code).toBe(0);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );

  testIf(missingTool('mvn'))(
    'a JUnit 4 runner that fails whatever the filter does not fail the fetch with the real compile',
    async () => {
      // As above, the stub's run fails; the real one builds SpecTest, whose Parameterized data is a
      // missing file (a submodule's): reported as an initializationError though no method matches.
      const pom = MINI_POM.replace(
        /<dependency>.*<\/dependency>/,
        '<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>',
      ).replace('</plugins>', `${NEEDS_CLASSES}</plugins>`);
      const src = miniProject(pom);
      writeFileSync(
        join(src, 'src/test/java/m/FTest.java'),
        'package m;\n\npublic class FTest {\n  @org.junit.Test public void one() { org.junit.Assert.assertEquals(1, F.f()); }\n}\n',
      );
      writeFileSync(
        join(src, 'src/test/java/m/SpecTest.java'),
        'package m;\n\nimport org.junit.runner.RunWith;\nimport org.junit.runners.Parameterized;\n\n' +
          '@RunWith(Parameterized.class)\npublic class SpecTest {\n' +
          '  @Parameterized.Parameters public static java.util.List<Object[]> data() throws Exception {\n' +
          '    return java.util.Collections.singletonList(new Object[] { java.nio.file.Files.readString(java.nio.file.Path.of("spec/missing.yml")) });\n' +
          '  }\n  public SpecTest(String spec) {}\n  @org.junit.Test public void spec() {}\n}\n',
      );
      const ctx = fetchContext(src, new Date());
      try {
        const resolution = await (await detectJava(files({ 'pom.xml': pom })))!.fetch!(ctx);
        expect(ctx.lines.join('\n')).toMatch(/resolving again with the real compile/);
        expect(resolution.packages.map((p) => p.name)).toContain('org.apache.maven.surefire:surefire-junit4');
        const offline = offlineTest(src, join(ctx.depsDir, 'm2'));
        expect(offline.output).toMatch(/initializationError/);
        expect(offline.output).toMatch(/FTest/);
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );
});
