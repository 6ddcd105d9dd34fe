import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lastReleases, must, type Release } from './release';

/**
 * An artifact's last `count` releases (`group:artifact`; milestones, alphas, betas, candidates and
 * date-stamped versions left out) from the host's Maven repositories, each put together as a Maven project: the published POM as
 * `pom.xml`, the `sources` jar under `src/main` and the `test-sources` jar under `src/test` (`.java`
 * files in `java/`, the rest in `resources/`), dated by the newest entry of its jars (Maven's
 * reproducible builds stamp them with the release's time). Named `group:artifact:source-release`, the
 * artifact is a project's root and each release is its `source-release` zip: the project's own source
 * tree (every module, its tests and build files) as the release's assembly packed it, dated by its newest
 * entry. The host's `mvn` fetches them (its settings, mirrors included) into a local repository of the
 * bench's own.
 */
export async function mavenReleases(coordinates: string, count: number, work: string): Promise<Release[]> {
  const [group, artifact, classifier] = coordinates.split(':');
  const ga = `${group}:${artifact}`;
  const repo = join(work, 'm2');
  await mkdir(work, { recursive: true });
  const get = (spec: string) =>
    must(
      'mvn',
      ['-q', '-B', `-Dmaven.repo.local=${repo}`, 'dependency:get', `-Dartifact=${spec}`, '-Dtransitive=false'],
      {
        cwd: work,
      },
    );
  await get(`${ga}:RELEASE:pom`);
  const dir = join(repo, ...group.split('.'), artifact);
  const metadata = (await readdir(dir)).find((f) => /^maven-metadata.*\.xml$/.test(f));
  if (!metadata) throw new Error(`${coordinates}: no version listing came with the release`);
  const listed = [...(await readFile(join(dir, metadata), 'utf8')).matchAll(/<version>([^<]+)<\/version>/g)].map(
    (m) => m[1],
  );
  const versions = lastReleases(
    coordinates,
    // The listing's order is the order of publication; a date for a version (commons-cli's 20040117.000000) is an old upload's, not a release.
    listed.filter((v) => !/alpha|beta|rc|cr|m\d|milestone|snapshot|preview/i.test(v) && !/^\d{8}/.test(v)),
    count,
  );
  const place = classifier === 'source-release' ? placeSourceRelease : placeJars;
  const releases: Release[] = [];
  for (const version of versions) {
    const tree = join(work, 'trees', `${artifact}-${version}`);
    await mkdir(tree, { recursive: true });
    const dated = await place({ get, ga, artifact, version, at: join(dir, version), tree, work });
    releases.push({ version, date: await newestEntry(dated, work), dir: tree });
  }
  return releases;
}

interface Placing {
  get: (spec: string) => Promise<string>;
  /** `group:artifact`. */
  ga: string;
  artifact: string;
  version: string;
  /** The version's directory in the local repository. */
  at: string;
  tree: string;
  work: string;
}

/** Puts a release's `source-release` zip in `tree`, less its one top directory; returns the zip. */
async function placeSourceRelease({ get, ga, artifact, version, at, tree, work }: Placing): Promise<string> {
  await get(`${ga}:${version}:zip:source-release`);
  const zip = join(at, `${artifact}-${version}-source-release.zip`);
  const unpacked = join(work, 'unpacked', version);
  await mkdir(unpacked, { recursive: true });
  await must('unzip', ['-q', '-o', zip, '-d', unpacked]);
  await must('bash', ['-c', 'cp -a "$1"/*/. "$2"', 'place', unpacked, tree]);
  return zip;
}

/** Puts a release's POM, `sources` and `test-sources` jars in `tree` as a Maven project; returns the sources jar. */
async function placeJars({ get, ga, artifact, version, at, tree, work }: Placing): Promise<string> {
  for (const kind of ['pom', 'jar:sources', 'jar:test-sources']) await get(`${ga}:${version}:${kind}`);
  await must('cp', [join(at, `${artifact}-${version}.pom`), join(tree, 'pom.xml')]);
  for (const [jar, into] of [
    ['sources', 'main'],
    ['test-sources', 'test'],
  ]) {
    const unpacked = join(work, 'unpacked', `${version}-${jar}`);
    await mkdir(unpacked, { recursive: true });
    await must('unzip', ['-q', '-o', join(at, `${artifact}-${version}-${jar}.jar`), '-d', unpacked]);
    await must('bash', [
      '-c',
      'cd "$1" && rm -f META-INF/MANIFEST.MF && find . -type f | while read -r f; do case "$f" in *.java) d="$2/java";; *) d="$2/resources";; esac; mkdir -p "$d/$(dirname "$f")" && cp "$f" "$d/$f"; done',
      'place',
      unpacked,
      join(tree, 'src', into),
    ]);
  }
  return join(at, `${artifact}-${version}-sources.jar`);
}

/** The newest modification time among a jar's (or zip's) entries, as ISO time. */
async function newestEntry(jar: string, work: string): Promise<string | undefined> {
  const listing = await must('unzip', ['-Z', '-T', jar], { cwd: work });
  const stamps = [...listing.matchAll(/ (\d{8})\.(\d{6}) /g)].map((m) => `${m[1]}T${m[2]}`).sort();
  const last = stamps.pop();
  if (!last) return undefined;
  return `${last.slice(0, 4)}-${last.slice(4, 6)}-${last.slice(6, 8)}T${last.slice(9, 11)}:${last.slice(11, 13)}:${last.slice(13, 15)}Z`;
}
