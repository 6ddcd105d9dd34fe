import Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAVEN_STORE } from '../../../../src/environments/languages/java/detect';
import { goldTestsFor } from '../../../../src/judge/gold-validation';
import { StageSandbox } from '../../../../src/stage/stage-sandbox';
import { ChainRepo } from '../../../support/chain-repo';
import { ownSandboxes, removeBuiltImagesAfterAll } from '../../../support/containers';
import { goldDeps, testEnvironments } from '../../../support/environments';
import { missingTool, testIf } from '../../../support/preconditions';

const docker = new Docker();
const removedAfterAll = removeBuiltImagesAfterAll(docker);

afterAll(async () => {
  expect(await ownSandboxes(docker, 'chainsmith.gold')).toHaveLength(0);
});

/**
 * Java 8 and JUnit 4, with animal-sniffer checking the main code against Java 8's API signature at
 * process-classes, as many libraries' POMs do: a check no test outcome depends on.
 */
const pom = (extra = '') => `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>words</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>${extra}
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version></plugin>
    <plugin><groupId>org.codehaus.mojo</groupId><artifactId>animal-sniffer-maven-plugin</artifactId><version>1.23</version>
      <executions><execution><id>api</id><phase>process-classes</phase><goals><goal>check</goal></goals></execution></executions>
      <configuration><signature><groupId>org.codehaus.mojo.signature</groupId><artifactId>java18</artifactId><version>1.0</version></signature></configuration>
    </plugin>
  </plugins></build>
</project>
`;
const GSON =
  '\n    <dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version><scope>test</scope></dependency>';
const code = (body: string) => `package w;\n\npublic class Words {\n${body}}\n`;
const COUNT =
  '  public static int count(String s) { return s.trim().isEmpty() ? 0 : s.trim().split("\\\\s+").length; }\n';
const test = (cls: string, body: string, imports = '') =>
  `package w;\n\nimport org.junit.Test;\nimport static org.junit.Assert.assertEquals;\n${imports}\npublic class ${cls} {\n${body}}\n`;

/**
 * Two PRs of a Maven project: #1 fixes a method and tests it; #2 adds Gson to the POM for a
 * new test that uses it. Their dependencies differ, their JDK and settings do not: one image serves
 * both, each stage finding what its POMs need in the repository's store, which gold and agents'
 * sandboxes mount read-only. Maven fetches from the registry the host's settings name.
 */
testIf(missingTool('mvn'))(
  "stages whose POMs' dependencies differ share one image and find theirs in the store; an agent's sandbox runs Maven offline on it and cannot write it",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-store-'));
    const repo = await ChainRepo.create(join(dir, 'words'), {
      'pom.xml': pom(),
      'src/main/java/w/Words.java': code('  public static int count(String s) { return s.split(" ").length; }\n'),
      'src/test/java/w/WordsTest.java': test(
        'WordsTest',
        '  @Test public void one() { assertEquals(1, Words.count("a")); }\n',
      ),
      NONCE: randomBytes(8).toString('hex'),
    });
    const fix = await repo.pr(1, 'Count no empty word before a leading space', {
      'src/main/java/w/Words.java': code(COUNT),
      'src/test/java/w/WordsTest.java': test(
        'WordsTest',
        '  @Test public void one() { assertEquals(1, Words.count("a")); }\n  @Test public void leading() { assertEquals(1, Words.count(" a")); }\n',
      ),
    });
    const shout = await repo.pr(2, 'Shout', {
      'pom.xml': pom(GSON),
      'src/main/java/w/Words.java': code(
        `${COUNT}  public static String shout(String s) { return s.toUpperCase(); }\n`,
      ),
      'src/test/java/w/ShoutTest.java': test(
        'ShoutTest',
        '  @Test public void shouts() { assertEquals(new Gson().toJson("HI"), new Gson().toJson(Words.shout("hi"))); }\n',
        'import com.google.gson.Gson;\n',
      ),
    });
    const chain = repo.chain('gen/words-store', [fix, shout]);
    // A data directory of its own: the store starts empty.
    const environments = removedAfterAll(testEnvironments(docker, {}, join(dir, 'home')));
    const deps = goldDeps(docker, dir, environments);

    const first = await goldTestsFor(deps, chain, 0);
    expect(first).toMatchObject({
      status: 'verified',
      failToPass: ['w.WordsTest#leading'],
      passToPass: ['w.WordsTest#one'],
    });
    const second = await goldTestsFor(deps, chain, 1);
    expect(second).toMatchObject({ status: 'verified', failToPass: ['w.ShoutTest#shouts'] });
    // One image built, for both stages; each stage is told its own dependencies.
    expect(environments.built).toHaveLength(1);
    const [atFix, atShout] = [await environments.forStage(chain, 0), await environments.forStage(chain, 1)];
    expect(atShout.image).toBe(atFix.image);
    const names = (env: typeof atFix) => env.manifest.resolution?.packages.map((p) => `${p.name}@${p.version}`) ?? [];
    expect(names(atFix)).toContain('junit:junit@4.13.2');
    expect(names(atFix)).not.toContain('com.google.code.gson:gson@2.10.1');
    expect(names(atShout)).toContain('com.google.code.gson:gson@2.10.1');
    const [store] = Object.keys(atShout.mounts ?? {});
    expect(atShout.mounts).toEqual({ [store]: MAVEN_STORE });
    expect(existsSync(join(store, 'com/google/code/gson/gson/2.10.1/gson-2.10.1.jar'))).toBe(true);
    // animal-sniffer is resolved but skipped (settings.ts): the API signature its check would load was never fetched.
    expect(existsSync(join(store, 'org/codehaus/mojo/animal-sniffer-maven-plugin'))).toBe(true);
    expect(existsSync(join(store, 'org/codehaus/mojo/signature'))).toBe(false);

    // An agent's sandbox at stage 2's merge: its own plain `mvn test` runs offline on the store, which it cannot change.
    const runKey = `store-${randomBytes(4).toString('hex')}`;
    const agent = await StageSandbox.open(deps, chain, 1, {
      role: { kind: 'rollout', runKey, key: `${runKey}-0`, host: `store-test-${process.pid}` },
      carryPatch: '',
    });
    try {
      const merge = await agent.exec(`git checkout -q ${shout.mergeSha} -- . && mvn -q test 2>&1 | tail -n 20`, {
        timeoutSeconds: 600,
        maxOutputChars: 8_000,
        cwd: '/work/repo',
      });
      expect(merge.output).not.toMatch(/BUILD FAILURE|ERROR/);
      const reports = await agent.exec('ls target/surefire-reports', {
        timeoutSeconds: 30,
        maxOutputChars: 2_000,
        cwd: '/work/repo',
      });
      expect(reports.output).toContain('TEST-w.ShoutTest.xml');
      const write = await agent.exec(`touch ${MAVEN_STORE}/planted`, { timeoutSeconds: 30, maxOutputChars: 2_000 });
      expect(write.exitCode).not.toBe(0);
      expect(write.output).toMatch(/Read-only file system/);
    } finally {
      await agent.destroy();
    }
  },
  1_200_000,
);
