import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JAVAC_COMPAT } from '../../../../src/environments/languages/java/old-release';
import { runTool } from '../../../../src/environments/host-tools';
import { missingTool, testIf } from '../../../support/preconditions';

/**
 * The javac wrapper a Java 5 or 6 POM's compiles are forked through, run as Maven's forked compiler
 * runs it (options in an @argfile), on the host's JDK: the Java 5 source compiles (as Java 7: class
 * version 51), and the compiler's JVM ran on the quick JIT tier with the serial collector.
 */
testIf(missingTool('javac'))(
  'the Java 5 wrapper compiles for Java 7, in a JVM on the quick JIT tier',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-javac-compat-'));
    try {
      const wrapper = join(dir, 'javac-compat');
      await writeFile(wrapper, JAVAC_COMPAT, { mode: 0o755 });
      await writeFile(join(dir, 'Old.java'), 'public class Old { public int one() { return 1; } }\n');
      await writeFile(
        join(dir, 'args'),
        ['"-source"', '"1.5"', '"-target"', '"1.5"', '"-d"', `"${dir}"`, `"${join(dir, 'Old.java')}"`].join('\n'),
      );
      // PrintCommandLineFlags: the compiler's JVM says which flags it was started with.
      const r = await runTool(wrapper, ['-J-XX:+PrintCommandLineFlags', `@${join(dir, 'args')}`], { cwd: dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/-XX:TieredStopAtLevel=1\b/);
      expect(r.stdout).toMatch(/-XX:\+UseSerialGC\b/);
      const cls = await readFile(join(dir, 'Old.class'));
      // Major version at bytes 6-7: 51 is Java 7 (the source asked for 5, which javac 17 refuses).
      expect(cls.readUInt16BE(6)).toBe(51);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
