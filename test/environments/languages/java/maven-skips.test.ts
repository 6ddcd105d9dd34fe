import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool, tail } from '../../../../src/environments/host-tools';
import { parseSurefire } from '../../../../src/environments/languages/java/maven';
import { propertyArgs, QUICK_JVM } from '../../../../src/environments/languages/java/settings';
import { missingTool, testIf } from '../../../support/preconditions';

/** An OSGi library's POM: maven-bundle-plugin writes the bundle's manifest at process-classes, before every test run. */
const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>parts</artifactId><version>1.0</version>
  <properties><maven.compiler.release>11</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version></plugin>
    <plugin><groupId>org.apache.felix</groupId><artifactId>maven-bundle-plugin</artifactId><version>5.1.9</version>
      <executions><execution><id>bundle-manifest</id><phase>process-classes</phase><goals><goal>manifest</goal></goals></execution></executions>
    </plugin>
  </plugins></build>
</project>
`;
const CODE =
  'package p;\n\npublic class Parts {\n  public static String[] split(String s) { return s.split(","); }\n}\n';
const TEST = `package p;

import org.junit.Test;
import static org.junit.Assert.assertEquals;

public class PartsTest {
  @Test public void two() { assertEquals(2, Parts.split("a,b").length); }
  @Test public void trailingEmpty() { assertEquals(3, Parts.split("a,b,").length); }
}
`;

/** `mvn test` in `dir` on the host's settings and local repository; the per-test outcomes from Surefire's reports. */
async function mvnTest(dir: string, args: string[]) {
  await rm(join(dir, 'target'), { recursive: true, force: true });
  const run = await runTool('mvn', ['-B', '-q', ...args, 'test'], { cwd: dir, env: { MAVEN_OPTS: QUICK_JVM } });
  if (run.code !== 0) throw new Error(`mvn test exited ${run.code}:\n${tail(run.stdout + run.stderr)}`);
  const reports = join(dir, 'target/surefire-reports');
  const xml = await Promise.all(
    (await readdir(reports)).filter((f) => f.endsWith('.xml')).map((f) => readFile(join(reports, f), 'utf8')),
  );
  const cases = parseSurefire(xml.join('\n')) ?? [];
  return {
    outcomes: Object.fromEntries(cases.map((c) => [c.id, c.outcome])),
    manifest: existsSync(join(dir, 'target/classes/META-INF/MANIFEST.MF')),
  };
}

testIf(missingTool('mvn'))(
  "Maven runs skip maven-bundle-plugin's manifest (settings.ts) and the tests' outcomes stay as a full run has them",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-skips-'));
    await mkdir(join(dir, 'src/main/java/p'), { recursive: true });
    await mkdir(join(dir, 'src/test/java/p'), { recursive: true });
    await writeFile(join(dir, 'pom.xml'), POM);
    await writeFile(join(dir, 'src/main/java/p/Parts.java'), CODE);
    await writeFile(join(dir, 'src/test/java/p/PartsTest.java'), TEST);

    // Without the skips the plugin runs: the manifest is there (so the check below can fail).
    const full = await mvnTest(dir, ['-Dmaven.test.failure.ignore=true']);
    expect(full.manifest).toBe(true);
    // String.split drops trailing empty strings: one test passes, one fails.
    expect(full.outcomes).toEqual({ 'p.PartsTest#two': 'passed', 'p.PartsTest#trailingEmpty': 'failed' });

    const skipped = await mvnTest(dir, ['-Dmaven.test.failure.ignore=true', ...propertyArgs()]);
    expect(skipped.manifest).toBe(false);
    expect(skipped.outcomes).toEqual(full.outcomes);
  },
  600_000,
);
