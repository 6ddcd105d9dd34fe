import { readdir, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import {
  DEPS_MOUNT,
  type FetchContext,
  type ExitCode,
  type LanguageRecipe,
  type RepoFiles,
  type Resolution,
} from '../../contract';
import { mustRun } from '../host-command';
import { runTool } from '../../host-tools';
import { unionDirectory } from '../../merge-deps';
import { shellQuote } from '../../../process/shell-quote';
import { belowOldest, compatProperties, JAVAC_COMPAT, OLDEST_RELEASE } from './old-release';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type JavaRecipe = LanguageRecipe<'java', 'maven' | ExitCode, 'java'>;

/** Debian bookworm's JDK (with its Maven 3.8). */
export const DEBIAN_JDK = '17';
const M2 = '/home/agent/.m2';
/**
 * A Surefire run that resolves and loads everything a test run needs (plugins, the test provider
 * for the project's JUnit or TestNG, its launcher) and runs no test: a method name no test has.
 */
export const RESOLVE_ONLY = `test '-Dtest=*#chainsmithResolveOnly' -Dsurefire.failIfNoSpecifiedTests=false -DfailIfNoTests=false`;
const GRADLE_FILES = ['build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts'];

/** The Java release a POM compiles for (maven.compiler.release/source, java.version, a compiler plugin's <release>). */
export function javaRelease(pom: string): string | undefined {
  const m =
    /<(?:maven\.compiler\.release|maven\.compiler\.source|java\.version|release|source)>\s*(?:1\.)?(\d+)\s*</.exec(pom);
  return m?.[1];
}

/**
 * Maven projects (pom.xml at the root). The host's Maven fills a local repository in depsDir with all
 * that `mvn test` needs, through the host's settings (~/.m2/settings.xml, mirrors, proxies); the
 * image gets a copy as its own ~/.m2/repository and settings that make every Maven run offline.
 * Gradle builds are detected and refused with the reason: the Gradle distribution a wrapper downloads
 * is on no package registry this host reaches, and Debian's Gradle (4.4) is too old for them.
 */
export async function detectJava(files: RepoFiles): Promise<JavaRecipe | undefined> {
  if (files.rootFiles.has('pom.xml')) return maven(files);
  const gradle = GRADLE_FILES.filter((f) => files.rootFiles.has(f));
  if (gradle.length) return gradleRefused(gradle, files.rootFiles.has('gradlew'));
  return undefined;
}

async function maven(files: RepoFiles): Promise<JavaRecipe> {
  const pom = (await files.read('pom.xml')) ?? '';
  const modules = [...pom.matchAll(/<module>\s*([^<\s]+)\s*<\/module>/g)].map(
    (m) => `${m[1].replace(/\/$/, '')}/pom.xml`,
  );
  const release = javaRelease(pom);
  const notes: string[] = [];
  if (release && Number(release) > Number(DEBIAN_JDK))
    notes.push(`the POM compiles for Java ${release}; Debian bookworm's JDK ${DEBIAN_JDK} is the newest available`);
  if (files.rootFiles.has('mvnw')) notes.push("the Maven wrapper is not used: the image runs Debian's Maven 3.8");
  const compat = belowOldest(release);
  if (compat)
    notes.push(
      `the POM compiles for Java ${release}, which JDK ${DEBIAN_JDK} no longer takes: Maven forks javac through a wrapper that compiles for Java ${OLDEST_RELEASE}`,
    );
  const wrapper = `${M2}/javac-compat`;
  const properties = compat
    ? `<profiles><profile><id>chainsmith-javac</id><properties>${Object.entries(compatProperties(wrapper))
        .map(([k, v]) => `<${k}>${v}</${k}>`)
        .join(
          '',
        )}</properties></profile></profiles><activeProfiles><activeProfile>chainsmith-javac</activeProfile></activeProfiles>`
    : '';
  return {
    language: 'java',
    origin: 'java-maven',
    toolchain: { image: 'java', version: DEBIAN_JDK, ...(notes.length ? { note: notes.join('; ') } : {}) },
    manifests: ['pom.xml', ...modules],
    fetch: (ctx) => fetchMaven(ctx, compat),
    pinned: true,
    withMerged: unionDirectory('m2'),
    dependencyText: withoutOwnVersion,
    setup: [
      `mkdir -p ${M2}`,
      `cp -R ${DEPS_MOUNT}/m2 ${M2}/repository`,
      // Artifacts fetched on the host remember the host's repository ids, which offline Maven would not trust here.
      `find ${M2}/repository \\( -name _remote.repositories -o -name '*.lastUpdated' -o -name resolver-status.properties \\) -delete`,
      ...(compat ? [`printf '%s' ${shellQuote(JAVAC_COMPAT)} > ${wrapper}`, `chmod 755 ${wrapper}`] : []),
      // Settings' active profiles' properties reach every project's model: the offline test runs fork javac through the wrapper too.
      `printf '%s\\n' '<settings><offline>true</offline>${properties}</settings>' > ${M2}/settings.xml`,
      // Proves the copy suffices offline: compiles main and test code and starts Surefire's provider.
      `mvn -o -B -q ${RESOLVE_ONLY}`,
    ],
    env: {},
    path: [],
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
 * the provider). Versions are the POMs' own; Maven has no resolution date (ranges and snapshots
 * resolve now, which the notes say).
 */
export async function fetchMaven(ctx: FetchContext, compat = false): Promise<Resolution> {
  const repo = join(ctx.depsDir, 'm2');
  ctx.log('maven: resolving what `mvn test` needs (plugins, dependencies, Surefire provider)');
  // The checkout is a scratch copy of the host's: the wrapper can sit in it for this run.
  const wrapper = join(ctx.srcDir, '.chainsmith-javac-compat');
  if (compat) await writeFile(wrapper, JAVAC_COMPAT, { mode: 0o755 });
  const forked = compat ? Object.entries(compatProperties(wrapper)).map(([k, v]) => `-D${k}=${v}`) : [];
  await mustRun(
    'mvn test (resolving only)',
    'mvn',
    ['-B', `-Dmaven.repo.local=${repo}`, ...forked, ...RESOLVE_ONLY.split(' ').map((a) => a.replace(/^'|'$/g, ''))],
    {
      cwd: ctx.srcDir,
      signal: ctx.signal,
    },
  );
  const packages = await artifacts(repo);
  const notes = ['versions as the POMs declare them'];
  if (packages.some((p) => p.version.endsWith('-SNAPSHOT'))) notes.push('SNAPSHOT artifacts resolved as of now');
  const version = (await runTool('mvn', ['-v'], { cwd: ctx.srcDir })).stdout
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')[0]
    .trim();
  return { ecosystem: 'maven', tool: version || 'mvn', lock: 'none', packages, notes };
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
