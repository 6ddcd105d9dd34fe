import type { Explain } from '../host-command';

/** Maven's line naming the goal that stopped a build: `[ERROR] Failed to execute goal G:A:V:goal (execution) on project P: why`. */
const FAILED_GOAL = /^\[ERROR\] Failed to execute goal (\S+:\S+:\S+:\S+) \(([^)]*)\) on project ([^:\s]+): (.*)$/m;
/** A goal's complaint about what it could not download or find: the dependencies' side after all. */
const UNRESOLVED =
  /could not be resolved|Could not resolve|Could not transfer|Could not find artifact|Non-resolvable|was not found in/i;

/**
 * A Maven run that failed in a plugin's goal for another reason than a download (a goal that fails on
 * this JDK, a compile error, a check that refuses the tree): `build-failed`, its summary naming the
 * goal, its execution and its complaint, which the output's tail (Maven's help lines after it, a
 * compiler's errors) may leave out. A missing dependency or plugin is left to the caller's kind.
 */
function mavenGoalFailure(what: string): Explain {
  return (output) => {
    const m = FAILED_GOAL.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!m || UNRESOLVED.test(m[4])) return undefined;
    const why = m[4].replace(/\s*-> \[Help \d+\]$/, '');
    return { kind: 'build-failed', summary: `${what} failed in ${m[1]} (${m[2]}) on project ${m[3]}: ${why}` };
  };
}

/**
 * A POM the project's model needs, its parent or an imported BOM, that Maven could not resolve
 * (`Non-resolvable parent POM for G:A:V: Could not transfer artifact G:A:pom:V …`): the build reads no
 * project, so no goal ran and the summary said only that the run failed; the artifact was in the
 * output's tail among download lines and URLs. Seen as a parent `-SNAPSHOT` no registry keeps any more.
 */
const UNREADABLE_POM =
  /Non-resolvable (parent|import) POM(?: for ([^:\s]+:[^:\s]+:[^:\s]+))?: .*?([\w.-]+:[\w.-]+:pom:[\w.-]+)/;

/** `dependencies-unresolvable`, naming the POM that could not be had and the project that needs it. */
function mavenModelFailure(what: string): Explain {
  return (output) => {
    const m = UNREADABLE_POM.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!m) return undefined;
    const [, role, project, pom] = m;
    const snapshot = pom.endsWith('-SNAPSHOT') ? ' (a SNAPSHOT, which registries keep only for a while)' : '';
    const of = project ? ` of ${project}` : '';
    return {
      kind: 'dependencies-unresolvable',
      summary: `${what} failed: the ${role} POM ${pom}${of} could not be resolved from the host's Maven repositories${snapshot}`,
    };
  };
}

/** Why a host Maven run failed: a POM the model needs (mavenModelFailure), else a goal (mavenGoalFailure). */
export function mavenFailure(what: string): Explain {
  const model = mavenModelFailure(what);
  const goal = mavenGoalFailure(what);
  return (output) => model(output) ?? goal(output);
}
