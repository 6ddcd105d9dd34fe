import { readdir, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { StageError, ToolchainTooOld } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import {
  DEPS_MOUNT,
  type FetchContext,
  type ExitCode,
  type LanguageRecipe,
  type RepoFiles,
  type Resolution,
} from '../../contract';
import { highestVersion, mustRun, toolFailure } from '../host-command';
import {
  OFFLINE_PROOF,
  UNRESOLVED_FILE,
  unresolvedLine,
  unresolvedProjects,
  unservedOf,
  type UnresolvedProjects,
} from './maven-unresolved';
import { runTool, toolsDirOf } from '../../host-tools';
import { unionDirectory } from '../../merge-deps';
import { shellQuote } from '../../../process/shell-quote';
import { sharedUntilFailure } from '../../../shared-promise';
import { type HostJdk } from './host-jdk';
import { belowOldest, compatProperties, compilerDefault, JAVAC_COMPAT, OLDEST_RELEASE } from './old-release';
import { MAVEN_OPTS, propertyArgs, QUICK_JVM, settings } from './settings';
import { seedFromStore } from './seed-repo';
import { mavenDaemonSetup, MVN_DAEMON_DIR } from './maven-daemon';
import { mavenFailure } from './maven-failure';
import { MAVEN_HOME_IN_IMAGE, mavenDistribution, NEEDS_NEWER_MAVEN, NEWER_MAVEN } from './maven-dist';
import { hostSkipExtension, imageSkipExtension, SKIPS_JAR } from './skip-extension';
import { STUB_JAVAC, stubCompiler, stubProperties } from './stub-javac';
import { OPEN_PACKAGES, OPTIONS_VARIABLE, opensPackages } from './open-packages';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type JavaRecipe = LanguageRecipe<'java', 'maven' | ExitCode, 'java'>;

/** Debian bookworm's JDK (with its Maven 3.8). */
export const DEBIAN_JDK = '17';
const M2 = '/home/agent/.m2';
/**
 * Where the repository's Maven store (every artifact any of its stages' POMs fetched, store.ts) is
 * mounted read-only, as every Maven run's local repository (the image's settings name it).
 */
export const MAVEN_STORE = '/opt/chainsmith/m2';
/** What the resolver writes beside an artifact about where it came from: tied to the host's repository ids, which offline Maven here would not trust. */
export const HOST_BOOKKEEPING = /^(?:_remote\.repositories|resolver-status\.properties)$|\.lastUpdated$/;
/**
 * A Surefire run that resolves and loads everything a test run needs (plugins, the test provider
 * for the project's JUnit or TestNG, its launcher) and runs no test: a method name no test has. A
 * JUnit 4 runner that fails as it is built (a Parameterized class whose data files are missing) is
 * reported as failing whatever the filter; such a failure says nothing of what was resolved.
 */
export const RESOLVE_ONLY = `test '-Dtest=*#chainsmithResolveOnly' -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false -Dmaven.test.failure.ignore=true`;
const GRADLE_FILES = ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];

/** The Java release a POM compiles for (maven.compiler.release/source, java.version, a compiler plugin's <release>). */
export function javaRelease(pom: string): string | undefined {
  const m =
    /<(?:maven\.compiler\.release|maven\.compiler\.source|java\.version|release|source)>\s*(?:1\.)?(\d+)\s*</.exec(pom);
  return m?.[1];
}

/**
 * Maven projects (pom.xml at the root). The host's Maven fills a local repository in depsDir with all
 * that `mvn test` needs, through the host's settings (~/.m2/settings.xml, mirrors, proxies), the
 * base's POMs and the merge's; that joins the repository's one store (LanguageRecipe.dependencyStore),
 * mounted read-only at MAVEN_STORE in builds and sandboxes. The image holds the JDK and settings that
 * make every Maven run offline on that store, skipping plugins no test outcome depends on (SKIPPED):
 * every stage of a repository on one JDK and compiler setting shares one image, whatever its POM's
 * dependencies and plugins. Where a plugin requires a newer Maven than Debian's 3.8, the fetch says the
 * toolchain is too old and the same recipe on Maven NEWER_MAVEN (maven-dist.ts) is built instead.
 * Gradle builds are detected and refused with the reason: the Gradle distribution a wrapper downloads
 * is on no package registry this host reaches, and Debian's Gradle (4.4) is too old for them.
 */
export async function detectJava(
  files: RepoFiles,
  host?: HostJdk,
  merged?: RepoFiles,
): Promise<JavaRecipe | undefined> {
  if (files.rootFiles.has('pom.xml')) return maven(files, host, merged);
  const gradle = GRADLE_FILES.filter((f) => files.rootFiles.has(f));
  if (gradle.length) return gradleRefused(gradle, files.rootFiles.has('gradlew'));
  return undefined;
}

async function maven(files: RepoFiles, host?: HostJdk, merged?: RepoFiles): Promise<JavaRecipe> {
  const pom = (await files.read('pom.xml')) ?? '';
  const modules = [...pom.matchAll(/<module>\s*([^<\s]+)\s*<\/module>/g)].map(
    (m) => `${m[1].replace(/\/$/, '')}/pom.xml`,
  );
  const release = javaRelease(pom);
  const notes: string[] = [];
  // A release past Debian's JDK, at the base or at the PR's merge (one environment serves both), compiles
  // on the host's newest JDK where that one takes it (images/host-java).
  const atMerge = merged && javaRelease((await merged.read('pom.xml')) ?? '');
  const newest = highestVersion([release, atMerge]);
  const past = newest !== undefined && Number(newest) > Number(DEBIAN_JDK);
  const jdk = past && host && Number(host.release) >= Number(newest) ? host : undefined;
  const whose = newest === release ? 'the POM' : "the PR's POM";
  if (jdk)
    notes.push(
      `${whose} compiles for Java ${newest}: the host's JDK ${jdk.release} rather than Debian bookworm's JDK ${DEBIAN_JDK}`,
    );
  else if (past)
    notes.push(
      `${whose} compiles for Java ${newest}; ${host && Number(host.release) > Number(DEBIAN_JDK) ? `the host's JDK ${host.release}` : `Debian bookworm's JDK ${DEBIAN_JDK}`} is the newest available`,
    );
  const compiles = release ?? compilerDefault(pom);
  const compat = belowOldest(compiles);
  if (compat)
    notes.push(
      `the POM compiles for Java ${compiles}${release ? '' : " (its compiler plugin's default: it names no release)"}, which JDK ${DEBIAN_JDK} no longer takes: Maven forks javac through a wrapper that compiles for Java ${OLDEST_RELEASE}`,
    );
  const opens = opensPackages(release);
  if (opens)
    notes.push(
      `the POM compiles for Java ${release ?? '(unnamed)'}, whose JDKs let code reflect into their own packages: JDK ${DEBIAN_JDK}'s JVMs open them (${OPTIONS_VARIABLE})`,
    );
  const wrapperNote = files.rootFiles.has('mvnw') ? ['the Maven wrapper is not used'] : [];
  const on = (newer?: string): JavaRecipe =>
    mavenRecipe(
      [...modules],
      compat,
      opens,
      [
        ...notes,
        ...(newer
          ? [
              `Maven ${newer} from the host's Maven repositories: a plugin of the POM requires a newer Maven than Debian's 3.8`,
            ]
          : []),
        ...wrapperNote.map((n) => `${n}: the image runs ${newer ? `Maven ${newer}` : "Debian's Maven 3.8"}`),
      ],
      newer,
      jdk,
    );
  // A plugin that requires Maven 3.9 fails the fetch on Debian's 3.8 (ToolchainTooOld): the same recipe on the newer Maven is built instead.
  return { ...on(), fallback: on(NEWER_MAVEN), tooOld: NEEDS_NEWER_MAVEN };
}

/**
 * The Maven recipe on Debian's Maven, or on Maven `newer` (MAVEN_HOME_IN_IMAGE, first on PATH); with
 * `opens`, every JVM opens the JDK's packages to reflection (open-packages.ts); with `jdk`, on the
 * host's JDK (its home first on PATH and JAVA_HOME, on the host's fetch and in the image) rather than
 * Debian's.
 */
function mavenRecipe(
  modules: string[],
  compat: boolean,
  opens: boolean,
  notes: string[],
  newer?: string,
  jdk?: HostJdk,
): JavaRecipe {
  const wrapper = `${M2}/javac-compat`;
  const stub = `${M2}/stub-javac`;
  return {
    language: 'java',
    origin: newer ? `java-maven-${newer}` : 'java-maven',
    toolchain: {
      image: 'java',
      version: jdk?.release ?? DEBIAN_JDK,
      ...(jdk ? { prefix: jdk.prefix } : {}),
      ...(notes.length ? { note: notes.join('; ') } : {}),
    },
    manifests: ['pom.xml', ...modules],
    fetch: (ctx) => fetchMaven(ctx, compat, newer, jdk?.prefix),
    pinned: true,
    withMerged: unionDirectory('m2'),
    dependencyStore: { dir: MAVEN_STORE, from: 'm2', leaveOut: HOST_BOOKKEEPING },
    dependencyText: withoutOwnVersion,
    setup: [
      ...(newer ? [`cp -a ${DEPS_MOUNT}/maven ${MAVEN_HOME_IN_IMAGE}`] : []),
      `mkdir -p ${M2}`,
      ...imageSkipExtension(`${M2}/${SKIPS_JAR}`),
      ...(compat ? [`printf '%s' ${shellQuote(JAVAC_COMPAT)} > ${wrapper}`, `chmod 755 ${wrapper}`] : []),
      // Settings' active profiles' properties reach every project's model: the offline test runs (an agent's too) skip what SKIPPED names and fork javac through the wrapper.
      `printf '%s\\n' ${shellQuote(settings(MAVEN_STORE, compat ? compatProperties(wrapper) : {}))} > ${M2}/settings.xml`,
      // The test runs' one Maven JVM a sandbox (maven-daemon.ts).
      ...mavenDaemonSetup(`/home/agent/${MVN_DAEMON_DIR}`),
      `printf '%s' ${shellQuote(STUB_JAVAC)} > ${stub}`,
      `chmod 755 ${stub}`,
      // Proves the store suffices offline for what `mvn test` resolves and starts (Surefire's provider
      // and fork), compiling nothing (stub-javac.ts; every sandbox's run compiles its own tree); with
      // the real compile where the build fails without the classes, as the host's fetch does.
      // Fail-at-end, as the fetch: only the projects it went without may fail, for their dependencies (UNRESOLVED_FILE).
      `${MAVEN_OPTS}; ${OFFLINE_PROOF}; proof ${propertyArgs(stubProperties(stub), false).join(' ')} ${RESOLVE_ONLY} || proof ${RESOLVE_ONLY}`,
    ],
    // Every Maven run of the image (an agent's own too) loads the extension (skip-extension.ts).
    env: {
      MAVEN_OPTS: `${QUICK_JVM} -Dmaven.ext.class.path=${M2}/${SKIPS_JAR}`,
      ...(opens ? { [OPTIONS_VARIABLE]: OPEN_PACKAGES } : {}),
      ...(jdk ? { JAVA_HOME: jdk.prefix } : {}),
    },
    path: [...(newer ? [`${MAVEN_HOME_IN_IMAGE}/bin`] : []), ...(jdk ? [`${jdk.prefix}/bin`] : [])],
    runner: 'maven',
  };
}

/**
 * A POM without the project's own version (the one beside its artifactId, outside <parent>) and its
 * SCM tag: a release bumps them, and nothing Maven fetches depends on them (the reactor's modules are built, not fetched).
 */
export function withoutOwnVersion(_path: string, pom: string): string {
  const parent = /<parent>[\s\S]*?<\/parent>/.exec(pom)?.[0] ?? '';
  const body = pom.replace(parent, '<parent/>').replace(/<scm>[\s\S]*?<\/scm>/, '');
  // Only right after the project's own artifactId (leaf elements such as <packaging> between): a POM without a version of its own keeps every other.
  const own = /<artifactId>[^<]*<\/artifactId>\s*(?:<[^>/]+>[^<]*<\/[^>]+>\s*)*?(<version>[^<]*<\/version>)/y;
  own.lastIndex = Math.max(0, body.indexOf('<artifactId>'));
  const m = own.exec(body);
  return parent + (m ? body.slice(0, m.index + m[0].length - m[1].length) + body.slice(m.index + m[0].length) : body);
}

function gradleRefused(found: string[], wrapper: boolean): JavaRecipe {
  const why =
    `a Gradle build (${found.join(', ')}${wrapper ? ', gradlew' : ''}) cannot be set up offline: ` +
    'the Gradle distribution the wrapper downloads is on no package registry this host reaches, and Debian bookworm packages only Gradle 4.4; ' +
    'configure a recipe for this repository instead';
  return {
    language: 'java',
    origin: 'java-gradle',
    toolchain: { image: 'java', version: DEBIAN_JDK, note: why },
    manifests: found,
    fetch: async () => {
      throw new StageError(why, { reason: stageReason('unsupported', why) });
    },
    setup: [],
    env: {},
    path: [],
    // Never run: its fetch refuses the build.
    runner: 'exit-code',
  };
}

/**
 * Runs the project's test lifecycle on the host with a fresh local repository in depsDir/m2, so that
 * plugins and Surefire's provider come in along with the dependencies (`dependency:go-offline` misses
 * the provider). The compiler is a stub that compiles nothing (stub-javac.ts): what is fetched is what
 * `mvn test` resolves, not the project's classes. Where the build fails without them, it runs again
 * with the real compile (forked through the javac wrapper for a Java 5 or 6 POM), on the same local
 * repository. Versions are the POMs' own; Maven has no resolution date (ranges and snapshots resolve
 * now, which the notes say). The local repository starts with what the repository's store holds
 * (seed-repo.ts), so only what no earlier fetch brought is downloaded.
 */
export async function fetchMaven(
  ctx: FetchContext,
  compat = false,
  newer?: string,
  javaHome?: string,
): Promise<Resolution> {
  const repo = join(ctx.depsDir, 'm2');
  const seeded = ctx.store ? await seedFromStore(ctx.store, repo, HOST_BOOKKEEPING) : undefined;
  const toolsDir = toolsDirOf(ctx.toolsDir);
  let home: string | undefined;
  let mvn = 'mvn';
  if (newer) {
    ctx.log(`maven: Maven ${newer} from the host's Maven repositories`);
    home = await mavenDistribution(newer, toolsDir, ctx.signal);
    // The build installs it from the dependency directory (MAVEN_HOME_IN_IMAGE).
    await mustRun(`copying Maven ${newer}`, 'cp', ['-a', home, join(ctx.depsDir, 'maven')], { signal: ctx.signal });
    mvn = join(home, 'bin', 'mvn');
  } else home = (await hostMaven()).home;
  // Without it (no Maven home, or no compiler on the host) the fetch goes on: only a POM with an old
  // maven-bundle-plugin needs it, and fails as before.
  const extension = home ? await hostSkipExtension(home, toolsDir, ctx.signal).catch(() => undefined) : undefined;
  if (!extension) ctx.log("maven: the skips' extension could not be compiled on the host; fetching without it");
  ctx.log('maven: resolving what `mvn test` needs (plugins, dependencies, Surefire provider)');
  /**
   * Fail-at-end: one project's dependency that no registry serves leaves the others resolved, and
   * is returned (unresolvedProjects) where nothing else failed; any other failure throws.
   */
  const resolve = async (
    what: string,
    extra: Record<string, string>,
    goals = false,
  ): Promise<UnresolvedProjects | undefined> => {
    // The goal first, so that a reason's command (400 characters) shows it; the image's settings
    // skip the same plugins (settings.ts): what they would fetch is not needed there either.
    const args = [
      '-B',
      ...RESOLVE_ONLY.split(' ').map((a) => a.replace(/^'|'$/g, '')),
      '-fae',
      `-Dmaven.repo.local=${repo}`,
      ...(extension ? [`-Dmaven.ext.class.path=${extension}`] : []),
      ...propertyArgs(extra),
    ];
    const run = await runTool(mvn, args, {
      cwd: ctx.srcDir,
      signal: ctx.signal,
      env: { MAVEN_OPTS: process.env.MAVEN_OPTS ?? QUICK_JVM, ...(javaHome ? { JAVA_HOME: javaHome } : {}) },
    });
    if (run.code === 0) return undefined;
    const output = `${run.stdout}\n${run.stderr}`;
    // A plugin that needs a newer Maven fails alike with the real compile: the recipe's fallback runs on
    // one. Before fail-at-end leaves its project out, which would test that project on neither Maven.
    const needs = newer ? null : NEEDS_NEWER_MAVEN.exec(output);
    if (needs) throw new ToolchainTooOld(`${needs[0]}, and Debian's Maven is 3.8`);
    const unresolved = unresolvedProjects(output, goals);
    if (unresolved) return unresolved;
    throw toolFailure(what, mvn, args, run, mavenFailure(what));
  };
  // The checkout is a scratch copy of the host's: the stub and the wrapper can sit in it for this run.
  let unresolved: UnresolvedProjects | undefined;
  try {
    unresolved = await resolve('mvn test (resolving only, compiling nothing)', await stubCompiler(ctx.srcDir));
  } catch (err) {
    if (!(err instanceof StageError) || err instanceof ToolchainTooOld || ctx.signal.aborted) throw err;
    // Every source is stale to the compiler plugin (its class is missing), so all of it compiles.
    ctx.log('maven: the build needs the project compiled; resolving again with the real compile');
    const wrapper = join(ctx.srcDir, '.chainsmith-javac-compat');
    if (compat) await writeFile(wrapper, JAVAC_COMPAT, { mode: 0o755 });
    // The real build: a project failing in a goal fails alike in every sandbox, and the others' tests run.
    unresolved = await resolve('mvn test (resolving only)', compat ? compatProperties(wrapper) : {}, true);
  }
  const notes = ['versions as the POMs declare them'];
  if (unresolved) {
    ctx.log(
      `maven: project ${unresolved.projects.join(', ')} failed${unresolved.artifacts.length ? ` (${unresolved.artifacts.join(', ')} not served)` : ''}; going on without it`,
    );
    notes.push(
      `project ${unresolved.projects.join(', ')} failed on the host (${unresolved.unresolved.length ? 'what no registry served' : 'a goal'}); the others resolved and are tested (fail-at-end)`,
    );
    // The image's offline proof accepts these projects' failures, and no other (mavenRecipe's setup).
    await writeFile(join(ctx.depsDir, UNRESOLVED_FILE), unresolved.projects.map(unresolvedLine).join('\n') + '\n');
  }
  if (seeded) {
    const unused = await seeded.prune();
    notes.push(
      `${seeded.versions - unused} artifact versions the build read taken from the repository's store, not downloaded again`,
    );
  }
  const packages = await artifacts(repo);
  if (packages.some((p) => p.version.endsWith('-SNAPSHOT'))) notes.push('SNAPSHOT artifacts resolved as of now');
  const tool = newer ? `Apache Maven ${newer}` : (await hostMavenVersion()) || 'mvn';
  return {
    ecosystem: 'maven',
    tool,
    lock: 'none',
    packages,
    notes,
    ...(unresolved?.unresolved.length ? { unserved: unservedOf(unresolved) } : {}),
  };
}

const hostMavens = new Map<string, Promise<{ line: string; home?: string }>>();

/**
 * What the host's `mvn -v` says: its version line (`Apache Maven 3.8.7`) and its `Maven home:` (where
 * its lib/ is: Debian's /usr/share/maven, Homebrew's libexec), asked once a process for each `mvn` the
 * environment finds (PATH, JAVA_HOME, MAVEN_HOME): `mvn -v` starts a JVM (0.3 CPU-s), and every fetch
 * asked it the same. A failed ask is asked again next time.
 */
function hostMaven(): Promise<{ line: string; home?: string }> {
  const { PATH, JAVA_HOME, MAVEN_HOME, M2_HOME } = process.env;
  const key = JSON.stringify([PATH, JAVA_HOME, MAVEN_HOME, M2_HOME]);
  // A failed ask rejects, so that it is forgotten; its first line is still the answer this time.
  return sharedUntilFailure(hostMavens, key, async () => {
    const r = await runTool('mvn', ['-v']);
    const lines = r.stdout.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
    const line = lines[0].trim();
    if (r.code !== 0) throw Object.assign(new Error(`mvn -v exited ${r.code}`), { line });
    const home = lines
      .find((l) => l.startsWith('Maven home:'))
      ?.slice('Maven home:'.length)
      .trim();
    return { line, ...(home ? { home } : {}) };
  }).catch((e: { line?: string }) => ({ line: e.line ?? '' }));
}

/** The host's Maven version line (hostMaven). */
export async function hostMavenVersion(): Promise<string> {
  return (await hostMaven()).line;
}

/** group:artifact and version of every jar in a local repository (plugins and their dependencies included). */
async function artifacts(repo: string): Promise<Array<{ name: string; version: string }>> {
  const found = new Map<string, { name: string; version: string }>();
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.jar')) {
        const parts = relative(repo, path).split(sep);
        if (parts.length < 4) continue;
        const [artifact, version] = parts.slice(-3, -1);
        const name = `${parts.slice(0, -3).join('.')}:${artifact}`;
        found.set(`${name}@${version}`, { name, version });
      }
    }
  };
  await walk(repo);
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}
