import { DEPS_MOUNT, type Resolution } from '../../contract';

/**
 * In a multi-module build, the projects whose own dependencies the registries do not serve, where
 * nothing else failed. Maven's fail-at-end (`-fae`) resolves and tests every other project (those
 * that depend on a failed one are skipped), so the environment is built without them: a stage is
 * `dependencies-unresolvable` only where its tests need what is missing (Resolution.unserved).
 */
export interface UnresolvedProjects {
  /** The failed projects' artifactIds, as Maven's `on project P` names them. */
  projects: string[];
  /** The artifacts it could not resolve (`g:a:jar:1.0`), as an offline run's error names them too. */
  artifacts: string[];
}

/** Every goal or project that stopped a build; only these lines say why a `-fae` build failed. */
const FAILED = /^\[ERROR\] Failed to execute goal\b.*$/gm;
/** A project's dependency resolution (Maven 3.8 puts the cause on the same line, 3.9 on the next ones). */
const UNRESOLVED =
  /^\[ERROR\] Failed to execute goal on project ([^:\s]+): Could not resolve dependencies for project /;
/** An artifact an error says it could not find, transfer or read, alone or in a list (`a:b:jar:1, c:d:jar:2: …`). */
const ARTIFACT = /(?:artifacts? |descriptor for |resolved: |, )([\w.-]+(?::[\w.-]+){3,4})/g;
/** The reactor's summary: printed where the build has more than one project. */
const REACTOR = /^\[INFO\] Reactor Summary/m;

/** What a failed `mvn -fae` run's output says was unresolved, where that is all it says and the build has other projects. */
export function unresolvedProjects(output: string): UnresolvedProjects | undefined {
  const text = output.replace(/\x1b\[[0-9;]*m/g, '');
  const failed = text.match(FAILED) ?? [];
  if (!REACTOR.test(text) || !failed.length) return undefined;
  const projects = failed.map((line) => UNRESOLVED.exec(line)?.[1]);
  if (projects.some((p) => !p)) return undefined;
  const artifacts = [...new Set([...text.matchAll(ARTIFACT)].map((m) => m[1]))].sort();
  return { projects: [...new Set(projects as string[])].sort(), artifacts };
}

/**
 * What an `UNRESOLVED_FILE` line says of each failed project: the part of Maven's error line that the
 * image's offline proof may show again, and nothing else that failed.
 */
export const unresolvedLine = (project: string) => `on project ${project}: Could not resolve dependencies`;

/** Beside the fetched local repository, one unresolvedLine per project the build goes without. */
export const UNRESOLVED_FILE = 'maven-unresolved';

/** The resolution's unserved entries, named as an offline run's error names them. */
export function unservedOf(u: UnresolvedProjects): NonNullable<Resolution['unserved']> {
  const why = `no registry the host's Maven reaches serves it; project ${u.projects.join(', ')} (and what depends on it) is built and tested without it`;
  return (u.artifacts.length ? u.artifacts : u.projects.map(unresolvedLine)).map((name) => ({
    name,
    why,
    named: 'bare' as const,
  }));
}

const PROOF_LOG = '/tmp/chainsmith-proof.log';
/**
 * `proof ARGS`: an offline `mvn -fae` run that passes, or fails only in the projects whose
 * dependencies the host's fetch did not find (their lines in UNRESOLVED_FILE); otherwise its status.
 */
export const OFFLINE_PROOF =
  `proof() { mvn -o -B -q -fae "$@" > ${PROOF_LOG} 2>&1 && return 0; s=$?; cat ${PROOF_LOG}; ` +
  `[ -s ${DEPS_MOUNT}/${UNRESOLVED_FILE} ] && ! grep '^\\[ERROR\\] Failed to execute goal' ${PROOF_LOG} | grep -qvF -f ${DEPS_MOUNT}/${UNRESOLVED_FILE} || return $s; }`;
