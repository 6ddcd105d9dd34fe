import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RepoFiles } from '../../../../src/environments/contract';
import { detectJava, javaRelease } from '../../../../src/environments/languages/java/detect';
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

  testIf(missingTool('mvn'))(
    "fetches a project's plugins, test framework and Surefire's provider into a fresh local repository",
    async () => {
      // A small generated project: the fetch is real Maven against the registry, without compiling
      // jsoup again. That what it fetches suffices offline is java-real's check (jsoup #2570 gold-validated
      // in a container with network none).
      const src = mkdtempSync(join(tmpdir(), 'chainsmith-maven-'));
      mkdirSync(join(src, 'src/main/java/m'), { recursive: true });
      mkdirSync(join(src, 'src/test/java/m'), { recursive: true });
      writeFileSync(join(src, 'pom.xml'), MINI_POM);
      writeFileSync(
        join(src, 'src/main/java/m/F.java'),
        'package m;\n\npublic class F {\n  public static int f() { return 1; }\n}\n',
      );
      writeFileSync(
        join(src, 'src/test/java/m/FTest.java'),
        'package m;\n\nimport org.junit.jupiter.api.Test;\n\nclass FTest {\n  @Test void one() { org.junit.jupiter.api.Assertions.assertEquals(1, F.f()); }\n}\n',
      );
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
      } finally {
        rmSync(ctx.depsDir, { recursive: true, force: true });
        rmSync(src, { recursive: true, force: true });
      }
    },
  );
});
