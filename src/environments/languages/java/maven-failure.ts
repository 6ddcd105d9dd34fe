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
export function mavenGoalFailure(what: string): Explain {
  return (output) => {
    const m = FAILED_GOAL.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
    if (!m || UNRESOLVED.test(m[4])) return undefined;
    const why = m[4].replace(/\s*-> \[Help \d+\]$/, '');
    return { kind: 'build-failed', summary: `${what} failed in ${m[1]} (${m[2]}) on project ${m[3]}: ${why}` };
  };
}
