import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool, tail } from '../../../../src/environments/host-tools';
import { mavenRunner } from '../../../../src/environments/languages/java/maven';
import { QUICK_JVM } from '../../../../src/environments/languages/java/settings';
import { missingTool, testIf } from '../../../support/preconditions';

/**
 * A POM whose Surefire passes a system property to the tests; with `helper`, the POM does not set it,
 * build-helper does at validate (a goal a Surefire run alone would not execute: the test would see none).
 */
const pom = (helper: boolean) => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>parts</artifactId><version>1.0</version>
  <properties><maven.compiler.release>11</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    ${helper ? '' : '<where>pom</where>'}</properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version>
      <configuration><systemPropertyVariables><where>\${where}</where></systemPropertyVariables></configuration></plugin>${
        helper
          ? `
    <plugin><groupId>org.codehaus.mojo</groupId><artifactId>build-helper-maven-plugin</artifactId><version>3.4.0</version>
      <executions><execution><id>where</id><phase>validate</phase><goals><goal>regex-property</goal></goals>
        <configuration><name>where</name><value>unset</value><regex>unset</regex><replacement>lifecycle</replacement></configuration>
      </execution></executions></plugin>`
          : ''
      }
  </plugins></build>
</project>
`;
const code = (sep: string) =>
  `package p;\n\npublic class Parts {\n  public static String[] split(String s) { return s.split("${sep}"); }\n}\n`;
const TEST = `package p;

import org.junit.Test;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class PartsTest {
  @Test public void two() { assertEquals(2, Parts.split("a,b").length); }
  @Test public void where() { String w = System.getProperty("where"); assertTrue(w, "pom".equals(w) || "lifecycle".equals(w)); }
}
`;
const FILES = ['src/test/java/p/PartsTest.java'];

async function project(dir: string, helper: boolean) {
  await mkdir(join(dir, 'src/main/java/p'), { recursive: true });
  await mkdir(join(dir, 'src/test/java/p'), { recursive: true });
  await writeFile(join(dir, 'pom.xml'), pom(helper));
  await writeFile(join(dir, 'src/main/java/p/Parts.java'), code(';'));
  await writeFile(join(dir, 'src/test/java/p/PartsTest.java'), TEST);
  // Online once, on the host's settings: the runner's own runs are offline, as in a sandbox.
  const fetch = await runTool('mvn', ['-B', '-q', '-Dmaven.test.failure.ignore=true', 'test'], {
    cwd: dir,
    env: { MAVEN_OPTS: QUICK_JVM },
  });
  if (fetch.code !== 0) throw new Error(`mvn test exited ${fetch.code}:\n${tail(fetch.stdout + fetch.stderr)}`);
}

/** The runner's command in `dir`, as a sandbox runs it (its log and marker in `tmp`): the goals it executed and the outcomes. */
async function run(dir: string, tmp: string, command: string) {
  const r = await runTool('bash', ['-c', command], { cwd: dir, env: { TMPDIR: tmp, MAVEN_OPTS: undefined } });
  const cases = mavenRunner.parse(r.stdout) ?? [];
  return {
    goals: [...r.stdout.matchAll(/^\[INFO\] --- ([\w.-]+):[^:]+:([\w-]+) /gm)].map((m) => `${m[1]}:${m[2]}`),
    outcomes: Object.fromEntries(cases.map((c) => [c.id, c.outcome])),
  };
}

testIf(missingTool('mvn'))(
  "a Maven rerun on an unchanged tree runs Surefire alone, with the full run's outcomes; a changed source or another goal keeps the lifecycle",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-rerun-'));
    try {
      const tmp = join(dir, 'run');
      await mkdir(tmp);
      const plain = join(dir, 'plain');
      await project(plain, false);
      const full = mavenRunner.command(FILES);
      const rerun = mavenRunner.rerun!(FILES);

      // The split is wrong (';' where ',' is meant): `two` fails, in the full run and in the rerun alike.
      const first = await run(plain, tmp, full);
      expect(first.goals).toContain('maven-compiler-plugin:compile');
      expect(first.outcomes['p.PartsTest#two']).toBe('failed');
      const again = await run(plain, tmp, rerun);
      expect(again.goals).toEqual(['maven-surefire-plugin:test']);
      expect(again.outcomes).toEqual(first.outcomes);

      // A source changed after the full run: the rerun is the full run, which compiles and sees the fix.
      await writeFile(join(plain, 'src/main/java/p/Parts.java'), code(','));
      const fixed = await run(plain, tmp, rerun);
      expect(fixed.goals).toContain('maven-compiler-plugin:compile');
      expect(fixed.outcomes['p.PartsTest#two']).toBe('passed');
      // And the rerun after that one, on its unchanged tree, is Surefire alone again.
      const fixedAgain = await run(plain, tmp, rerun);
      expect(fixedAgain.goals).toEqual(['maven-surefire-plugin:test']);
      expect(fixedAgain.outcomes).toEqual(fixed.outcomes);

      // build-helper sets the property Surefire hands the tests: Surefire alone would leave it unset
      // (checked: `where` fails that way), so the rerun keeps the whole lifecycle and `where` passes.
      const helper = join(dir, 'helper');
      await project(helper, true);
      const viaLifecycle = await run(helper, tmp, full);
      expect(viaLifecycle.goals).toContain('build-helper-maven-plugin:regex-property');
      expect(viaLifecycle.outcomes['p.PartsTest#where']).toBe('passed');
      const alone = await run(
        helper,
        tmp,
        full.replace(
          /mvn -o -B -fae test/,
          'mvn -o -B -fae org.apache.maven.plugins:maven-surefire-plugin:2.22.2:test@default-test',
        ),
      );
      expect(alone.goals).toEqual(['maven-surefire-plugin:test']);
      expect(alone.outcomes['p.PartsTest#where']).toBe('failed');
      await run(helper, tmp, full);
      const helperAgain = await run(helper, tmp, rerun);
      expect(helperAgain.goals).toContain('build-helper-maven-plugin:regex-property');
      expect(helperAgain.outcomes).toEqual(viaLifecycle.outcomes);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  600_000,
);
