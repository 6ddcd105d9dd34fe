import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool, tail } from '../../../../src/environments/host-tools';
import { mavenRunner } from '../../../../src/environments/languages/java/maven';
import { mavenDaemonSetup, MVN_DAEMON_DIR } from '../../../../src/environments/languages/java/maven-daemon';
import { QUICK_JVM } from '../../../../src/environments/languages/java/settings';
import { missingTool, testIf } from '../../../support/preconditions';

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>parts</artifactId><version>1.0</version>
  <properties><maven.compiler.release>11</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <where>pom</where></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
  </dependencies>
  <build><plugins>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin>
    <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version>
      <configuration><systemPropertyVariables><where>\${where}</where></systemPropertyVariables></configuration></plugin>
  </plugins></build>
</project>
`;
const code = (sep: string) =>
  `package p;\n\npublic class Parts {\n  public static String[] split(String s) { return s.split("${sep}"); }\n}\n`;
const TEST = `package p;

import org.junit.Test;
import static org.junit.Assert.assertEquals;

public class PartsTest {
  @Test public void two() { assertEquals(2, Parts.split("a,b").length); }
  @Test public void where() { assertEquals("pom", System.getProperty("where")); }
}
`;
const FILES = ['src/test/java/p/PartsTest.java'];

/**
 * The image's daemon setup lines run with a home of the test's own, and a project whose Parts splits at
 * `sep` and whose PartsTest is `test`, its dependencies fetched once online with plain mvn on the host's
 * settings: the runner's own runs are offline, as in a sandbox.
 */
async function partsProject(dir: string, sep: string, test: string) {
  const home = join(dir, 'home');
  const setup = await runTool('bash', ['-euc', mavenDaemonSetup(join(home, MVN_DAEMON_DIR)).join('\n')], {});
  expect(setup.code).toBe(0);
  const tmp = join(dir, 'run');
  await mkdir(tmp);
  const project = join(dir, 'parts');
  await mkdir(join(project, 'src/main/java/p'), { recursive: true });
  await mkdir(join(project, 'src/test/java/p'), { recursive: true });
  await writeFile(join(project, 'pom.xml'), POM);
  await writeFile(join(project, 'src/main/java/p/Parts.java'), code(sep));
  await writeFile(join(project, 'src/test/java/p/PartsTest.java'), test);
  const fetch = await runTool('mvn', ['-B', '-q', '-Dmaven.test.failure.ignore=true', 'test'], {
    cwd: project,
    env: { MAVEN_OPTS: QUICK_JVM },
  });
  if (fetch.code !== 0) throw new Error(`mvn test exited ${fetch.code}:\n${tail(fetch.stdout + fetch.stderr)}`);
  return { home, tmp, project };
}

testIf(missingTool('mvn'))(
  "a sandbox's Maven runs share one JVM that still sees a changed source and leaks no -D property; a run with tests in Maven's JVM, or its eighth run, ends it",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-daemon-'));
    // The last JVM seen: the earlier ones ended themselves, and their ids may since be another process's.
    let last: number | undefined;
    try {
      const { home, tmp, project } = await partsProject(dir, ';', TEST);

      /** The runner's command as a sandbox runs it: the outcomes, whether the JVM was kept, and which JVM ran it. */
      const run = async (command: string) => {
        const r = await runTool('bash', ['-c', command], {
          cwd: project,
          env: { HOME: home, TMPDIR: tmp, MAVEN_OPTS: undefined },
        });
        const pid = Number((await readFile(join(tmp, 'chainsmith-mvnd/ready'), 'utf8')).trim());
        last = pid;
        const cases = mavenRunner.parse(r.stdout) ?? [];
        return {
          outcomes: Object.fromEntries(cases.map((c) => [c.id, c.outcome])),
          pid,
          ended: /this Maven JVM is not kept for another run.*/.exec(r.stdout)?.[0],
        };
      };
      const full = mavenRunner.command(FILES);

      // The split is wrong (';' where ',' is meant): `two` fails.
      const first = await run(full);
      expect(first.outcomes).toEqual({ 'p.PartsTest#two': 'failed', 'p.PartsTest#where': 'passed' });
      expect(first.ended).toBeUndefined();

      // The source fixed: the same JVM runs the next run, which compiles the change and sees it.
      await writeFile(join(project, 'src/main/java/p/Parts.java'), code(','));
      const fixed = await run(full);
      expect(fixed.pid).toBe(first.pid);
      expect(fixed.outcomes).toEqual({ 'p.PartsTest#two': 'passed', 'p.PartsTest#where': 'passed' });
      // Surefire alone on the unchanged tree (the stability rerun), in the same JVM.
      const rerun = await run(mavenRunner.rerun!(FILES));
      expect(rerun.pid).toBe(first.pid);
      expect(rerun.outcomes).toEqual(fixed.outcomes);
      expect(rerun.ended).toBeUndefined();

      // A -D property reaches its own run's tests, and not the next run's (Maven sets it in the JVM's system properties).
      const withProperty = await run(full.replace('mvn -o -B -fae test', 'mvn -o -B -fae -Dwhere=cli test'));
      expect(withProperty.pid).toBe(first.pid);
      expect(withProperty.outcomes['p.PartsTest#where']).toBe('failed');
      const after = await run(full);
      expect(after.pid).toBe(first.pid);
      expect(after.outcomes).toEqual(fixed.outcomes);

      // Tests run in Maven's own JVM (forkCount=0): the JVM is not kept, and the next run has a new one.
      const inProcess = await run(full.replace('mvn -o -B -fae test', 'mvn -o -B -fae -DforkCount=0 test'));
      expect(inProcess.outcomes).toEqual(fixed.outcomes);
      expect(inProcess.ended).toMatch(/loaded by/);
      // Said where the next client looks before its answer came, so that a client quicker than the JVM's halt starts another.
      expect(await readFile(join(tmp, 'chainsmith-mvnd/ended'), 'utf8')).toMatch(/loaded by/);
      const next = await run(full);
      expect(next.pid).not.toBe(first.pid);
      expect(next.outcomes).toEqual(fixed.outcomes);
      expect(next.ended).toBeUndefined();

      // A JVM makes eight runs at most: the new one's second to seventh keep it, its eighth ends it.
      for (let n = 2; n <= 8; n++) {
        const again = await run(mavenRunner.rerun!(FILES));
        expect(again.pid).toBe(next.pid);
        expect(again.outcomes).toEqual(fixed.outcomes);
        expect(again.ended).toBe(
          n === 8 ? 'this Maven JVM is not kept for another run: it has made 8 runs' : undefined,
        );
      }
      expect(await readFile(join(tmp, 'chainsmith-mvnd/ended'), 'utf8')).toMatch(/made 8 runs/);
      expect((await run(full)).pid).not.toBe(next.pid);
    } finally {
      try {
        if (last) process.kill(last, 'SIGKILL');
      } catch {
        // Gone already.
      }
      await rm(dir, { recursive: true, force: true });
    }
  },
  600_000,
);

/** A process's state letter from /proc ('Z': ended, not reaped), or undefined where it is gone. */
async function procState(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2];
  } catch {
    return undefined;
  }
}

async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await done()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting: ${what}`);
}

/**
 * A client killed mid-run (its timeout) and left unreaped, as under a sandbox's `sleep` init: the JVM
 * ends that run and its test fork instead of running on and never reading another request, and the
 * next run gets a JVM of its own.
 */
testIf(missingTool('mvn'))(
  'a client killed mid-run and left a zombie ends the Maven JVM and its fork; the next run gets a new one',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-daemon-'));
    const kill = new Set<number>();
    try {
      // Sleeps while a file named `slow` is in the project.
      const { home, tmp, project } = await partsProject(
        dir,
        ',',
        'package p;\n\nimport org.junit.Test;\n\npublic class PartsTest {\n  @Test public void slow() throws Exception {\n    while (new java.io.File("slow").exists()) Thread.sleep(200);\n  }\n}\n',
      );
      const client = join(home, MVN_DAEMON_DIR, 'mvn');
      const env = { HOME: home, TMPDIR: tmp, MAVEN_OPTS: undefined };
      await writeFile(join(project, 'slow'), '');
      // The client's parent becomes `sleep`, which reaps nobody.
      const parent = spawn(
        'bash',
        ['-c', `"$0" -o -B test > run.log 2>&1 & echo $! > client.pid; exec sleep 600`, client],
        {
          cwd: project,
          env: { ...process.env, ...env, MAVEN_OPTS: '' },
          stdio: 'ignore',
        },
      );
      kill.add(parent.pid!);
      await waitFor(
        'the client',
        async () => (await readFile(join(project, 'client.pid'), 'utf8').catch(() => '')) !== '',
      );
      const clientPid = Number((await readFile(join(project, 'client.pid'), 'utf8')).trim());
      const ready = join(tmp, 'chainsmith-mvnd/ready');
      await waitFor('the Maven JVM', async () => (await readFile(ready, 'utf8').catch(() => '')).endsWith('\n'));
      const daemon = Number((await readFile(ready, 'utf8')).trim());
      kill.add(daemon);
      // Surefire's fork under way: the JVM has a child.
      const children = async () =>
        (await runTool('pgrep', ['-P', String(daemon)], {})).stdout.split('\n').filter(Boolean).map(Number);
      await waitFor('the test fork', async () => (await children()).length > 0);
      const fork = (await children())[0];
      kill.add(fork);

      process.kill(clientPid, 'SIGKILL');
      await waitFor('the client a zombie', async () => (await procState(clientPid)) === 'Z');
      await waitFor('the Maven JVM gone', async () => [undefined, 'Z'].includes(await procState(daemon)));
      await waitFor('the test fork gone', async () => [undefined, 'Z'].includes(await procState(fork)));
      // Gone: their ids may be another process's by the end.
      kill.delete(daemon);
      kill.delete(fork);

      await rm(join(project, 'slow'));
      const next = await runTool('bash', ['-c', mavenRunner.command(FILES)], { cwd: project, env });
      expect(mavenRunner.parse(next.stdout)).toEqual([{ id: 'p.PartsTest#slow', outcome: 'passed' }]);
      const nextDaemon = Number((await readFile(ready, 'utf8')).trim());
      kill.add(nextDaemon);
      expect(nextDaemon).not.toBe(daemon);
    } finally {
      for (const pid of kill) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await rm(dir, { recursive: true, force: true });
    }
  },
  600_000,
);
