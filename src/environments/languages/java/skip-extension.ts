import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { shellQuote } from '../../../process/shell-quote';
import { madeOnce } from '../../host-tools';
import { mustRun } from '../host-command';

/**
 * A Maven core extension (loaded through `maven.ext.class.path`) that takes maven-bundle-plugin's
 * `manifest` goal out of every project's build after the POMs are read. `bundle.skip` (settings.ts)
 * skips that goal only from the plugin's 5.x on; the 4.x releases have no such switch, and their bnd
 * fails on JDK 16 and later with a ConcurrentModificationException (FELIX-6259), so every build of a
 * POM with one failed here, the fetch included. The goal writes OSGi headers into
 * target/classes/META-INF/MANIFEST.MF, packaging metadata, as the skip leaves out on 5.x.
 */
const SOURCE = `package chainsmith;

import java.util.Iterator;
import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.project.MavenProject;

public class Skips extends AbstractMavenLifecycleParticipant {
  @Override
  public void afterProjectsRead(MavenSession session) {
    for (MavenProject project : session.getProjects())
      for (Plugin plugin : project.getBuildPlugins()) {
        if (!"org.apache.felix".equals(plugin.getGroupId()) || !"maven-bundle-plugin".equals(plugin.getArtifactId())) continue;
        for (Iterator<PluginExecution> it = plugin.getExecutions().iterator(); it.hasNext(); ) {
          PluginExecution execution = it.next();
          execution.getGoals().remove("manifest");
          if (execution.getGoals().isEmpty()) it.remove();
        }
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
