import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoFiles } from '../../src/environments/contract';
import { detectJava, javaRelease } from '../../src/environments/languages/java';
import { gitRepoFiles } from '../../src/environments/repo-files';
import { checkoutAt, commitDate, fetchContext, realRepo } from './real-repos';

const files = (entries: Record<string, string>): RepoFiles => ({ rootFiles: new Set(Object.keys(entries)), read: async (p) => entries[p] });

describe('Java recipe', () => {
  it("is detected from pom.xml, modules' POMs included, on Debian's JDK 17", async () => {
    expect(await detectJava(files({ 'Makefile': '' }))).toBeUndefined();
    const pom = '<project><properties><maven.compiler.release>11</maven.compiler.release></properties><modules><module>core</module><module>cli/</module></modules></project>';
    const recipe = await detectJava(files({ 'pom.xml': pom, mvnw: '' }));
    expect(recipe).toMatchObject({ language: 'java', origin: 'java-maven', runner: 'maven', manifests: ['pom.xml', 'core/pom.xml', 'cli/pom.xml'], toolchain: { image: 'java', version: '17' } });
    expect(recipe?.toolchain.note).toMatch(/wrapper is not used/);
    expect(recipe?.setup.join('\n')).toMatch(/_remote\.repositories/);
  });

  it('says when the POM needs a newer Java than 17', async () => {
    expect(javaRelease('<maven.compiler.source>1.8</maven.compiler.source>')).toBe('8');
    const recipe = await detectJava(files({ 'pom.xml': '<project><properties><java.version>21</java.version></properties></project>' }));
    expect(recipe?.toolchain.note).toMatch(/Java 21.*JDK 17/);
  });

  it('refuses a Gradle build at fetch time, saying why', async () => {
    const recipe = await detectJava(files({ 'build.gradle.kts': '', gradlew: '' }));
    expect(recipe).toMatchObject({ origin: 'java-gradle', runner: 'gradle' });
    await expect(recipe!.fetch!(fetchContext('/tmp', new Date()))).rejects.toThrow(/Gradle distribution .* no package registry/);
  });

  // jsoup PR #2570 (a default maximum depth for the XML parser).
  const base = 'f2ea9dfe8d99508ccf5ef082c35b9ad8f87eee37';
  it("fetches jsoup at PR #2570 with Surefire's provider and the test framework, into a fresh local repository", async () => {
    // That these suffice offline is java-real's check: the PR gold-validated in a container with network none.
    const repo = await realRepo('jhy+jsoup', 'mvn');
    if (!repo) return;
    const src = await checkoutAt(repo, base);
    const ctx = fetchContext(src, commitDate(repo, base));
    try {
      const resolution = await (await detectJava(await gitRepoFiles(repo, base)))!.fetch!(ctx);
      expect(resolution).toMatchObject({ ecosystem: 'maven', lock: 'none', tool: expect.stringMatching(/^Apache Maven 3/) });
      const names = resolution.packages.map((p) => p.name);
      expect(names).toContain('org.apache.maven.surefire:surefire-junit-platform');
      expect(names).toContain('org.junit.jupiter:junit-jupiter-api');
      const provider = resolution.packages.find((p) => p.name === 'org.apache.maven.surefire:surefire-junit-platform')!;
      const jar = join(ctx.depsDir, 'm2/org/apache/maven/surefire/surefire-junit-platform', provider.version, `surefire-junit-platform-${provider.version}.jar`);
      expect(existsSync(jar)).toBe(true);
    } finally {
      rmSync(ctx.depsDir, { recursive: true, force: true });
      rmSync(src, { recursive: true, force: true });
    }
  });
});
