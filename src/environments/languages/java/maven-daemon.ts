import { shellQuote } from '../../../process/shell-quote';

/**
 * One Maven JVM for the Maven runs of a sandbox, each run still the run `mvn` would make. A gold
 * sandbox runs Maven four or five times (the base, the merge twice, an empty patch, the base again),
 * and each run paid a new JVM's start, the project's model and the plugins' set-up, all in code that
 * a JVM of its own runs cold. Here the first run starts a JVM (MvnDaemon, below) that stays for the
 * next: each run is Maven's own entry point (`MavenCli.doMain`, as Maven's embedded mode runs it) with
 * its arguments, directory and output, in a new Maven container (plugins' realms and their classes new
 * each run); what is shared is the JVM and its loaded, compiled core (Maven's, Guice's, and javac's,
 * which Maven runs in-process). Surefire's fork is the project's own test JVM, started per run as before.
 *
 * What makes a run use it, else plain `mvn` (the client, MVN_CLIENT): no `-f`, no `.mvn/jvm.config`
 * (the project's options for Maven's JVM) and no MAVEN_DEBUG_OPTS; the JVM is one started from the
 * same directory, project base and environment (a hash of them: MAVEN_OPTS and PATH included), else a
 * new one replaces it. Around each run the JVM's system properties (Maven sets `-D` ones there), default
 * locale and time zone are put back. A run that loaded classes outside Maven's own container (tests
 * in Maven's JVM with `forkCount=0`, `exec:java`, an annotation processor: code that may change the
 * JVM's global state) or left a thread running ends the JVM after it, so the next run starts a new
 * one, as today. A client killed (its timeout) ends the run and its forks; a JVM that ends during a
 * run has the run made again by plain `mvn`. The JVM leaves after 10 minutes without a run, and
 * after its eighth run (a gold sandbox makes at most five): a plugin whose class realm leaks (a static
 * reference, a thread) keeps its heap and metaspace until the JVM leaves, so runs are bounded. A JVM
 * that ends after a run says so (`ended`) before it answers: the next client may come before its halt.
 */

/** Where the image keeps the client and the daemon's jar, under the home directory. */
export const MVN_DAEMON_DIR = '.m2/chainsmith-mvnd';

/** The daemon, a Java agent too (Premain-Class) for the classes a run loaded. */
export const MVN_DAEMON_SOURCE = `package chainsmith;

import java.io.*;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.codehaus.plexus.classworlds.ClassWorld;
import org.codehaus.plexus.classworlds.launcher.Launcher;
import org.codehaus.plexus.classworlds.realm.ClassRealm;

/** chainsmith: one Maven JVM for a sandbox's runs, each run as \`mvn\` would make it (maven-daemon.ts). */
public final class MvnDaemon {
  static Instrumentation inst;
  /** Class loaders of Maven's own container and of the JDK's reflection, which load nothing of the project's. */
  static final java.util.regex.Pattern MAVENS = java.util.regex.Pattern.compile(
      "jdk\\\\.internal\\\\.reflect\\\\.DelegatingClassLoader$|org\\\\.eclipse\\\\.sisu\\\\.|com\\\\.google\\\\.inject\\\\.internal\\\\.");
  static volatile long lastUsed = System.nanoTime();
  static volatile boolean busy;

  public static void premain(String args, Instrumentation i) { inst = i; }

  /** Arguments: the daemon's directory (its fifo, requests, answers), how many idle seconds it waits, and how many runs it makes. */
  public static void main(String[] a) throws Exception {
    Path dir = Paths.get(a[0]);
    long idleNs = Long.parseLong(a[1]) * 1_000_000_000L;
    int runs = Integer.parseInt(a[2]);
    Launcher launcher = new Launcher();
    try (InputStream conf = new FileInputStream(System.getProperty("classworlds.conf"))) { launcher.configure(conf); }
    ClassWorld world = launcher.getWorld();
    ClassRealm core = launcher.getMainRealm();
    Class<?> cli = core.loadClass("org.apache.maven.cli.MavenCli");
    Method doMain = cli.getMethod("doMain", String[].class, String.class, PrintStream.class, PrintStream.class);
    Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());
    daemon(() -> {
      while (busy || System.nanoTime() - lastUsed < idleNs) pause(1000);
      Runtime.getRuntime().halt(0);
    });
    RandomAccessFile fifo = new RandomAccessFile(dir.resolve("fifo").toFile(), "rw");
    Files.writeString(dir.resolve("ready"), ProcessHandle.current().pid() + "\\n");
    for (String name; (name = fifo.readLine()) != null; ) {
      // Fields, NUL-separated: the client's pid, its directory, Maven's project base, its stdout and stderr, then mvn's arguments.
      String[] f;
      long client;
      try {
        f = new String(Files.readAllBytes(dir.resolve(Paths.get(name.trim()).getFileName())), StandardCharsets.UTF_8).split("\\0", -1);
        client = Long.parseLong(f[0]);
      } catch (IOException | RuntimeException e) {
        continue;
      }
      if (f.length < 6) {
        answer(dir, client, 2);
        continue;
      }
      busy = true;
      // A client killed (its timeout) ends the run and its forks, as its process group's end would.
      java.util.concurrent.atomic.AtomicBoolean running = new java.util.concurrent.atomic.AtomicBoolean(true);
      daemon(() -> {
        while (running.get() && alive(client)) pause(500);
        if (!running.get()) return;
        ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
        Runtime.getRuntime().halt(137);
      });
      Properties saved = (Properties) System.getProperties().clone();
      Locale locale = Locale.getDefault();
      TimeZone zone = TimeZone.getDefault();
      int rc = 1;
      String unclean = null;
      try (PrintStream out = new PrintStream(new FileOutputStream(f[3], true), true);
          PrintStream err = new PrintStream(new FileOutputStream(f[4], true), true)) {
        try {
          System.setProperty("maven.multiModuleProjectDirectory", f[2]);
          Thread.currentThread().setContextClassLoader(core);
          Object maven = cli.getConstructor(ClassWorld.class).newInstance(world);
          rc = (Integer) doMain.invoke(maven, Arrays.copyOfRange(f, 5, f.length - 1), f[1], out, err);
        } catch (Throwable t) {
          t.printStackTrace(err);
          unclean = "the run threw " + t;
        }
        if (unclean == null) unclean = unclean(threads);
        if (unclean == null && --runs == 0) unclean = "it has made " + a[2] + " runs";
        if (unclean != null) out.println("[chainsmith] this Maven JVM is not kept for another run: " + unclean);
      }
      System.getProperties().clear();
      System.getProperties().putAll(saved);
      Locale.setDefault(locale);
      TimeZone.setDefault(zone);
      running.set(false);
      // Said before the answer: the next client may come before this JVM has halted, and must not send it a run.
      if (unclean != null) Files.writeString(dir.resolve("ended"), unclean + "\\n");
      answer(dir, client, rc);
      if (unclean != null) Runtime.getRuntime().halt(0);
      lastUsed = System.nanoTime();
      busy = false;
    }
  }

  /**
   * Why the next run should not share this JVM: a class the run loaded outside Maven's own realms
   * (tests in Maven's JVM with forkCount=0, exec:java, an annotation processor) may have changed the
   * JVM's global state, and a thread the run started may still run.
   */
  static String unclean(Set<Thread> before) {
    ClassLoader app = ClassLoader.getSystemClassLoader(), platform = ClassLoader.getPlatformClassLoader();
    for (Class<?> c : inst.getAllLoadedClasses()) {
      ClassLoader l = c.getClassLoader();
      if (l == null || l == app || l == platform || l instanceof ClassRealm) continue;
      if (MAVENS.matcher(l.getClass().getName()).lookingAt()) continue;
      return c.getName() + " was loaded by " + l.getClass().getName();
    }
    for (Thread t : Thread.getAllStackTraces().keySet())
      if (!t.isDaemon() && t.isAlive() && !before.contains(t)) return "its thread " + t.getName() + " still runs";
    return null;
  }

  /**
   * A client that ended is a zombie where nothing reaps it (a sandbox's init is \`sleep\`), which
   * ProcessHandle still calls alive: its state in /proc says.
   */
  static boolean alive(long pid) {
    try {
      String stat = Files.readString(Paths.get("/proc/" + pid + "/stat"));
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state != 'Z' && state != 'X';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The run's exit code to its client's fifo. Opened for reading and writing, which never waits on a
   * fifo: a client gone meanwhile leaves nobody to open the other end, and the daemon would wait forever.
   */
  static void answer(Path dir, long client, int rc) throws IOException {
    try (RandomAccessFile answer = new RandomAccessFile(dir.resolve("rc." + client).toFile(), "rw")) {
      answer.write((rc + "\\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  static void daemon(Runnable r) {
    Thread t = new Thread(r);
    t.setDaemon(true);
    t.start();
  }

  static void pause(long ms) {
    try { Thread.sleep(ms); } catch (InterruptedException e) { }
  }
}
`;

/** `mvn` for the runner's runs: through the daemon where the run fits, else plain mvn. */
export const MVN_CLIENT = `#!/bin/bash
# chainsmith: \`mvn\` through one Maven JVM kept for a sandbox's runs (maven-daemon.ts); plain mvn where a run does not fit.
jar=\${0%/*}/mvnd.jar
# Another POM (-f FILE, -fFILE, --file=FILE) moves the project's base: plain mvn finds it (-fae, -ff and -fn are failure modes).
for a; do case "$a" in -fae | -ff | -fn) ;; -f* | --file | --file=*) exec mvn "$@" ;; esac; done
base=$PWD w=$PWD
while [ -n "$w" ]; do [ -d "$w/.mvn" ] && { base=$w; break; }; w=\${w%/*}; done
[ -z "\${MAVEN_DEBUG_OPTS:-}" ] && [ ! -f "$base/.mvn/jvm.config" ] || exec mvn "$@"
# A daemon that ended is a zombie where nothing reaps it (a container's init may be \`sleep\`): alive only if neither.
alive() { local state; read -r _ _ state _ < "/proc/$1/stat" 2> /dev/null && [ "$state" != Z ]; }
home=$(readlink -f "$(command -v mvn)") && home=\${home%/bin/mvn}
d=\${TMPDIR:-/tmp}/chainsmith-mvnd
key=$({ env -0 -u _ -u SHLVL -u OLDPWD | sort -z; printf '%s\\0' "$PWD" "$base"; } | sha256sum)
pid=$(cat "$d/ready" 2>/dev/null)
# A JVM that said it ended (\`ended\`) may not have halted yet: it takes no more runs.
if [ "$(cat "$d/key" 2>/dev/null)" != "$key" ] || [ -z "$pid" ] || [ -e "$d/ended" ] || ! alive "$pid"; then
  # One that said it ended halts by itself, perhaps after answering another client's run: not killed.
  [ -n "$pid" ] && [ ! -e "$d/ended" ] && kill -9 "$pid" 2>/dev/null
  rm -rf "$d" && mkdir -p "$d" && mkfifo "$d/fifo" && printf '%s\\n' "$key" > "$d/key" || exec mvn "$@"
  # shellcheck disable=SC2086 # MAVEN_OPTS is a list of options, as mvn reads it
  setsid java $MAVEN_OPTS -javaagent:"$jar" -classpath "$(echo "$home"/boot/plexus-classworlds-*.jar):$jar" \\
    -Dclassworlds.conf="$home/bin/m2.conf" -Dmaven.home="$home" -Dlibrary.jansi.path="$home/lib/jansi-native" \\
    chainsmith.MvnDaemon "$d" 600 8 < /dev/null > "$d/log" 2>&1 &
  started=$!
  until [ -s "$d/ready" ]; do alive "$started" || exec mvn "$@"; sleep 0.05; done
  pid=$(cat "$d/ready")
fi
answer=$d/rc.$$
rm -f "$answer" && mkfifo "$answer" && exec 9<> "$answer" || exec mvn "$@"
# The JVM writes to this client's output through copies of it that no redirection below moves.
exec 7>&1 8>&2
printf '%s\\0' "$$" "$PWD" "$base" "/proc/$$/fd/7" "/proc/$$/fd/8" "$@" > "$d/req.$$"
echo "req.$$" > "$d/fifo"
until read -r -t 1 -u 9 rc; do
  alive "$pid" && continue
  echo "[chainsmith] the Maven JVM kept for this sandbox's runs ended during this run: the run again in a JVM of its own"
  exec mvn "$@"
done
rm -f "$answer" "$d/req.$$"
exit "$rc"
`;

/**
 * Image setup lines that install the client and compile the daemon into `dir`; where the compile
 * fails, no client is left and every run is plain `mvn`.
 */
export function mavenDaemonSetup(dir: string): string[] {
  return [
    `mkdir -p ${dir}/classes`,
    `printf '%s' ${shellQuote(MVN_DAEMON_SOURCE)} > ${dir}/MvnDaemon.java`,
    `printf '%s\\n' 'Premain-Class: chainsmith.MvnDaemon' > ${dir}/manifest`,
    `printf '%s' ${shellQuote(MVN_CLIENT)} > ${dir}/mvn`,
    `{ javac -J-XX:TieredStopAtLevel=1 -nowarn -cp "$(echo /usr/share/maven/boot/plexus-classworlds-*.jar)" -d ${dir}/classes ${dir}/MvnDaemon.java && jar cfm ${dir}/mvnd.jar ${dir}/manifest -C ${dir}/classes . && chmod 755 ${dir}/mvn; } || rm -f ${dir}/mvn`,
    `rm -rf ${dir}/classes ${dir}/manifest ${dir}/MvnDaemon.java`,
  ];
}

/** A runner's shell line: `mvn` is the image's client where it has one (its runs' directory is \`$HOME\`'s). */
export const MVN_THROUGH_DAEMON = `c="$HOME/${MVN_DAEMON_DIR}/mvn"; if [ -x "$c" ]; then mvn() { "$c" "$@"; }; fi`;
