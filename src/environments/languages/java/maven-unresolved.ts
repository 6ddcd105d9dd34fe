import { DEPS_MOUNT, type Resolution } from '../../contract';

/**
 * In a multi-module build, the projects that failed where others built: those whose own dependencies
 * the registries do not serve, and, with the real compile, those that fail in a goal (a test-only
 * module whose tests compile only against the packaged jar of another, which `mvn test` never makes).
 * Maven's fail-at-end (`-fae`) resolves and tests every other project (those that depend on a failed
 * one are skipped), so the environment is built without them: a stage is `dependencies-unresolvable`
 * only where its tests need what is missing (Resolution.unserved), and a stage whose tests are in a
 * project that fails is told so by its own run.
 */
export interface UnresolvedProjects {
  /** The failed projects' artifactIds, as Maven's `on project P` names them. */
  projects: string[];
  /** Of those, the ones whose dependencies did not resolve. */
  unresolved: string[];
  /** The artifacts it could not resolve (`g:a:jar:1.0`), as an offline run's error names them too. */
  artifacts: string[];
}

/** Every goal or project that stopped a build; only these lines say why a `-fae` build failed. */
const FAILED = /^\[ERROR\] Failed to execute goal\b.*$/gm;
/** A project's dependency resolution (Maven 3.8 puts the cause on the same line, 3.9 on the next ones). */
const UNRESOLVED =
  /^\[ERROR\] Failed to execute goal on project ([^:\s]+): Could not resolve dependencies for project /;
/** A plugin's goal that failed in a project (`G:A:V:goal (execution) on project P: why`). */
const GOAL = /^\[ERROR\] Failed to execute goal \S+:\S+:\S+:\S+ \([^)]*\) on project ([^:\s]+): /;
/** An artifact an error says it could not find, transfer or read, alone or in a list (`a:b:jar:1, c:d:jar:2: …`). */
const ARTIFACT = /(?:artifacts? |descriptor for |resolved: |, )([\w.-]+(?::[\w.-]+){3,4})/g;
/** A project the reactor's summary says built; besides an aggregating root, at least one other must have. */
const BUILT = /^\[INFO\] .* SUCCESS \[/gm;

/**
 * What a failed `mvn -fae` run's output says failed, where two or more projects of the reactor built
 * and every failure is a project's: its dependencies' resolution, or with `goals` (a run that
 * compiled for real) any plugin goal that failed in it, though not a plugin that could not be resolved.
 */
export function unresolvedProjects(output: string, goals = false): UnresolvedProjects | undefined {
  const text = output.replace(/\x1b\[[0-9;]*m/g, '');
  const failed = text.match(FAILED) ?? [];
  if ((text.match(BUILT) ?? []).length < 2 || !failed.length) return undefined;
  const unresolved = failed.map((line) => UNRESOLVED.exec(line)?.[1]);
  const projects = failed.map(
    (line, i) => unresolved[i] ?? (goals && !/could not be resolved/i.test(line) ? GOAL.exec(line)?.[1] : undefined),
  );
  if (projects.some((p) => !p)) return undefined;
  const named = unresolved.filter((p): p is string => !!p);
  const artifacts = named.length ? [...new Set([...text.matchAll(ARTIFACT)].map((m) => m[1]))].sort() : [];
  return {
    projects: [...new Set(projects as string[])].sort(),
    unresolved: [...new Set(named)].sort(),
    artifacts,
  };
}

/**
 * What an `UNRESOLVED_FILE` line says of each failed project: the part of Maven's error lines about it
 * that the image's offline proof may show again.
 */
export const unresolvedLine = (project: string) => `on project ${project}: `;

/** Beside the fetched local repository, one unresolvedLine per project the build goes without. */
export const UNRESOLVED_FILE = 'maven-unresolved';

/** The resolution's unserved entries, named as an offline run's error names them (none where nothing went unresolved). */
export function unservedOf(u: UnresolvedProjects): NonNullable<Resolution['unserved']> {
  const why = `no registry the host's Maven reaches serves it; project ${u.unresolved.join(', ')} (and what depends on it) is built and tested without it`;
  const lines = u.unresolved.map((p) => `on project ${p}: Could not resolve dependencies`);
  return (u.artifacts.length ? u.artifacts : lines).map((name) => ({ name, why, named: 'bare' as const }));
}

const PROOF_LOG = '/tmp/chainsmith-proof.log';
/**
 * `proof ARGS`: an offline `mvn -fae` run that passes, or fails only in the projects whose
 * dependencies the host's fetch did not find (their lines in UNRESOLVED_FILE); otherwise its status.
 */
export const OFFLINE_PROOF =
  `proof() { mvn -o -B -q -fae "$@" > ${PROOF_LOG} 2>&1 && return 0; s=$?; cat ${PROOF_LOG}; ` +
  `[ -s ${DEPS_MOUNT}/${UNRESOLVED_FILE} ] && ! grep '^\\[ERROR\\] Failed to execute goal' ${PROOF_LOG} | grep -qvF -f ${DEPS_MOUNT}/${UNRESOLVED_FILE} || return $s; }`;
