import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { shellQuote } from '../../../process/shell-quote';
import { madeOnce } from '../../host-tools';
import { mustRun } from '../host-command';

/** The property that names the javac chainsmith forks (stubProperties, compatProperties). */
export const JAVAC_PROPERTY = 'chainsmith.javac';

/**
 * A Maven core extension (loaded through `maven.ext.class.path`) that, after the POMs are read, takes
 * out of every project's build what cannot run on JDK 17 and that no test outcome depends on:
 *
 * - maven-bundle-plugin's `manifest` goal. `bundle.skip` (settings.ts) skips it only from the plugin's
 *   5.x on; the 4.x releases have no such switch, and their bnd fails on JDK 16 and later with a
 *   ConcurrentModificationException (FELIX-6259). The goal writes OSGi headers into
 *   target/classes/META-INF/MANIFEST.MF, packaging metadata, as the skip leaves out on 5.x.
 * - maven-artifact-plugin's `check-buildplan` goal (Apache parents bind it at validate): it checks that
 *   the plugins up to `deploy` build reproducibly, so it resolves every one of them, those no test run
 *   loads too, and a plugin no registry serves (japicmp 0.25.7, bound at verify) failed `mvn test`
 *   (commons-configuration 2025). A release check, as the skipped plugins of settings.ts are.
 * - Error Prone as the compiler plugin's compiler (`<compilerId>javac-with-errorprone</compilerId>`,
 *   plexus-compiler-javac-errorprone): its error_prone_core bundles a javac of JDK 9 that cannot read
 *   JDK 17's class files ("class file has wrong version 61.0, should be 53.0"), so nothing compiled. It
 *   is a checker; the plugin's own javac compiles the same sources.
 * - The JDK's tools.jar as a system dependency (`com.sun:tools`, `jdk.tools:jdk.tools`, at
 *   `${java.home}/../lib/tools.jar`), declared by a POM or by a dependency's (compile-testing before
 *   0.11): JDK 9 and later ship no tools.jar, its classes are in the JDK's own modules, and Maven
 *   refused the whole project ("Could not find artifact com.sun:tools:jar at specified path").
 * - javac's `-Werror` and `-Xdoclint` in the compiler plugin's arguments. A build warning-free and
 *   doclint-clean on the javac of its day is not on javac 17, whose lints and doclint check more (a
 *   `-source 8` without a boot class path, `new Integer(int)` marked for removal; doclint's headings out
 *   of sequence, junit4's 2015 POM): nothing compiled, before and after a change alike. Neither option
 *   changes the classes javac writes; the warnings stay in the log.
 * - A compiler configuration's own `<fork>` and `<executable>`, where chainsmith forks a javac of its
 *   own (JAVAC_PROPERTY: the stub of stub-javac.ts, the wrapper of old-release.ts). The properties
 *   `maven.compiler.fork` and `maven.compiler.executable` reach only a configuration that leaves
 *   them unset; Apache Commons' parent POM binds them to properties only its JDK profiles set
 *   (`<fork>${commons.compiler.fork}</fork>`), so a Java 6 project compiled in process on javac 17,
 *   which refused its `-source 6` (commons-fileupload 2017).
 */
const SOURCE = `package chainsmith;

import java.io.File;
import java.util.Iterator;
import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Dependency;
import org.apache.maven.model.Exclusion;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.project.MavenProject;
import org.codehaus.plexus.util.xml.Xpp3Dom;

public class Skips extends AbstractMavenLifecycleParticipant {
  private static final String[][] TOOLS_JAR = { { "com.sun", "tools" }, { "jdk.tools", "jdk.tools" } };
  private static final String JAVAC = "${JAVAC_PROPERTY}";

  @Override
  public void afterProjectsRead(MavenSession session) {
    boolean toolsJar = new File(System.getProperty("java.home"), "../lib/tools.jar").exists();
    for (MavenProject project : session.getProjects()) {
      String javac = session.getUserProperties().getProperty(JAVAC, project.getProperties().getProperty(JAVAC));
      for (Plugin plugin : project.getBuildPlugins()) {
        if (is(plugin, "org.apache.felix", "maven-bundle-plugin")) withoutGoal(plugin, "manifest");
        if (is(plugin, "org.apache.maven.plugins", "maven-artifact-plugin")) withoutGoal(plugin, "check-buildplan");
        if (is(plugin, "org.apache.maven.plugins", "maven-compiler-plugin")) {
          withoutErrorProne(plugin);
          withoutLintErrors(plugin.getConfiguration());
          for (PluginExecution execution : plugin.getExecutions()) withoutLintErrors(execution.getConfiguration());
          if (javac != null) {
            forkThrough(plugin.getConfiguration(), javac);
            for (PluginExecution execution : plugin.getExecutions()) forkThrough(execution.getConfiguration(), javac);
          }
        }
      }
      if (!toolsJar) withoutToolsJar(project);
    }
  }

  private static boolean is(Plugin plugin, String groupId, String artifactId) {
    return groupId.equals(plugin.getGroupId()) && artifactId.equals(plugin.getArtifactId());
  }

  private static void withoutGoal(Plugin plugin, String goal) {
    for (Iterator<PluginExecution> it = plugin.getExecutions().iterator(); it.hasNext(); ) {
      PluginExecution execution = it.next();
      execution.getGoals().remove(goal);
      if (execution.getGoals().isEmpty()) it.remove();
    }
  }

  private static void withoutErrorProne(Plugin plugin) {
    boolean found = plainJavac(plugin.getConfiguration());
    for (PluginExecution execution : plugin.getExecutions()) found |= plainJavac(execution.getConfiguration());
    if (!found) return;
    // The plugin's in-process javac would still load the bundled one from its class path.
    for (Iterator<Dependency> it = plugin.getDependencies().iterator(); it.hasNext(); ) {
      Dependency dependency = it.next();
      if ("com.google.errorprone".equals(dependency.getGroupId()) || dependency.getArtifactId().startsWith("plexus-compiler-javac-errorprone")) it.remove();
    }
  }

  /** Whether the configuration named Error Prone's compiler, now taken out. */
  private static boolean plainJavac(Object configuration) {
    if (!(configuration instanceof Xpp3Dom)) return false;
    Xpp3Dom dom = (Xpp3Dom) configuration;
    boolean found = false;
    for (int i = dom.getChildCount() - 1; i >= 0; i--) {
      Xpp3Dom child = dom.getChild(i);
      String value = child.getValue();
      if ("compilerId".equals(child.getName()) && value != null && value.trim().startsWith("javac-with-errorprone")) {
        dom.removeChild(i);
        found = true;
      }
    }
    return found;
  }

  /** Takes javac's -Werror and -Xdoclint options out of compilerArgs, compilerArguments and compilerArgument. */
  private static void withoutLintErrors(Object configuration) {
    if (!(configuration instanceof Xpp3Dom)) return;
    Xpp3Dom dom = (Xpp3Dom) configuration;
    for (int i = dom.getChildCount() - 1; i >= 0; i--) {
      Xpp3Dom child = dom.getChild(i);
      if ("compilerArgs".equals(child.getName())) {
        for (int j = child.getChildCount() - 1; j >= 0; j--) if (lintError(child.getChild(j).getValue())) child.removeChild(j);
      } else if ("compilerArguments".equals(child.getName())) {
        for (int j = child.getChildCount() - 1; j >= 0; j--) if (lintError("-" + child.getChild(j).getName())) child.removeChild(j);
      } else if ("compilerArgument".equals(child.getName()) && lintError(child.getValue())) dom.removeChild(i);
    }
  }

  private static boolean lintError(String arg) {
    String option = arg == null ? "" : arg.trim();
    return option.equals("-Werror") || option.startsWith("-Xdoclint");
  }

  /** A configuration's own fork and executable (properties of a parent's profiles, say) set to fork the given javac. */
  private static void forkThrough(Object configuration, String javac) {
    if (!(configuration instanceof Xpp3Dom)) return;
    set((Xpp3Dom) configuration, "fork", "true");
    set((Xpp3Dom) configuration, "executable", javac);
  }

  private static void set(Xpp3Dom dom, String name, String value) {
    Xpp3Dom child = dom.getChild(name);
    if (child == null) {
      child = new Xpp3Dom(name);
      dom.addChild(child);
    }
    child.setValue(value);
  }

  private static void withoutToolsJar(MavenProject project) {
    for (Iterator<Dependency> it = project.getDependencies().iterator(); it.hasNext(); ) {
      Dependency dependency = it.next();
      boolean own = false;
      for (String[] tools : TOOLS_JAR) {
        if (tools[0].equals(dependency.getGroupId()) && tools[1].equals(dependency.getArtifactId())) own = true;
        Exclusion exclusion = new Exclusion();
        exclusion.setGroupId(tools[0]);
        exclusion.setArtifactId(tools[1]);
        dependency.addExclusion(exclusion);
      }
      if (own && "system".equals(dependency.getScope())) it.remove();
    }
  }
}
`;

/** Plexus's component descriptor: Maven's container finds an extension's lifecycle participant through it. */
const COMPONENTS =
  '<component-set><components><component><role>org.apache.maven.AbstractMavenLifecycleParticipant</role>' +
  '<role-hint>chainsmith-skips</role-hint><implementation>chainsmith.Skips</implementation></component></components></component-set>';

export const SKIPS_JAR = 'chainsmith-skips.jar';

/**
 * Shell lines that compile the extension into `jar` against the Maven at `mavenHome` (a shell word:
 * `"$home"` or a quoted path); a failed compile fails them (a missing jar would be ignored by Maven).
 * The host's failure is no stage's: its fetch goes on without the extension.
 */
export function skipExtensionLines(jar: string, mavenHome: string): string[] {
  const dir = shellQuote(`${jar}.d`);
  return [
    `mkdir -p ${dir}/src/chainsmith ${dir}/classes/META-INF/plexus`,
    `printf '%s' ${shellQuote(SOURCE)} > ${dir}/src/chainsmith/Skips.java`,
    `printf '%s' ${shellQuote(COMPONENTS)} > ${dir}/classes/META-INF/plexus/components.xml`,
    `javac -J-XX:TieredStopAtLevel=1 -nowarn -cp ${mavenHome}'/lib/*' -d ${dir}/classes ${dir}/src/chainsmith/Skips.java`,
    `jar cf ${shellQuote(jar)} -C ${dir}/classes .`,
    `rm -rf ${dir}`,
  ];
}

/** The image's lines: compiled against the Maven first on PATH (Debian's, or the newer one the recipe installs). */
export function imageSkipExtension(jar: string): string[] {
  return [`home=$(readlink -f "$(command -v mvn)") && home=\${home%/bin/mvn}`, ...skipExtensionLines(jar, '$home')];
}

/**
 * The extension compiled on the host for the Maven at `mavenHome`, once per source and Maven under
 * `toolsDir` (compiled beside and renamed into place). Returns the jar's path.
 */
export async function hostSkipExtension(mavenHome: string, toolsDir: string, signal: AbortSignal): Promise<string> {
  const id = createHash('sha256').update(SOURCE).update(COMPONENTS).update(mavenHome).digest('hex').slice(0, 16);
  const dir = join(toolsDir, 'maven-skips', id);
  await madeOnce(dir, join(dir, SKIPS_JAR), async (tmp) => {
    const lines = skipExtensionLines(join(tmp, SKIPS_JAR), shellQuote(mavenHome));
    await mustRun('compiling the Maven extension', 'bash', ['-euo', 'pipefail', '-c', lines.join('\n')], { signal });
    return tmp;
  });
  return join(dir, SKIPS_JAR);
}
