import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchMaven, HOST_BOOKKEEPING } from '../../../../src/environments/languages/java/detect';
import { addToStore, storeSettled } from '../../../../src/environments/store';
import { missingTool, testIf } from '../../../support/preconditions';
import { fetchContext } from '../../real-repos';

const GSON =
  '<dependency><groupId>com.google.code.gson</groupId><artifactId>gson</artifactId><version>2.10.1</version><scope>test</scope></dependency>';

/** A JUnit 4 project with `extra` dependencies, one main class and one test. */
async function project(dir: string, extra = ''): Promise<string> {
  await mkdir(join(dir, 'src/main/java/w'), { recursive: true });
  await mkdir(join(dir, 'src/test/java/w'), { recursive: true });
  await writeFile(
    join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId><artifactId>words</artifactId><version>1.0</version>
  <properties><maven.compiler.source>1.8</maven.compiler.source><maven.compiler.target>1.8</maven.compiler.target></properties>
  <dependencies>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>${extra}
  </dependencies>
  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-surefire-plugin</artifactId><version>2.22.2</version></plugin></plugins></build>
</project>
`,
  );
  await writeFile(join(dir, 'src/main/java/w/Words.java'), 'package w;\n\npublic class Words {}\n');
  await writeFile(
    join(dir, 'src/test/java/w/WordsTest.java'),
    'package w;\n\nimport org.junit.Test;\n\npublic class WordsTest {\n  @Test public void one() {}\n}\n',
  );
  return dir;
}

/** Every path under `dir`, sorted. */
async function listing(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true })) as string[]).sort();
}

/**
 * A Maven fetch starts from what the repository's store holds (seed-repo.ts): it downloads none of it
 * again (Maven records where a download came from beside it; a taken artifact has no such record), and
 * its package list is still what its own build used: a version the store holds that this POM does not
 * need is not in it. A dependency the store lacks is still downloaded, and the store is not written.
 */
testIf(missingTool('mvn'))(
  "a Maven fetch takes what the repository's store holds instead of downloading it, lists only what its build used, and still downloads a new dependency",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chainsmith-maven-fetch-store-'));
    const depsDirs: string[] = [];
    try {
      await fetches(dir, depsDirs);
    } finally {
      await Promise.all([dir, ...depsDirs].map((d) => rm(d, { recursive: true, force: true })));
    }
  },
  600_000,
);

/** The three fetches and what each must show; every fetch directory is pushed onto `depsDirs` for removal. */
async function fetches(dir: string, depsDirs: string[]): Promise<void> {
  const store = join(dir, 'store');
  const asOf = new Date('2024-01-01T00:00:00Z');
  const junit = (depsDir: string) => join(depsDir, 'm2', 'junit', 'junit', '4.13.2');

  // The first fetch has no store: it downloads everything, and joins the store.
  const first = fetchContext(await project(join(dir, 'a')), asOf);
  depsDirs.push(first.depsDir);
  const a = await fetchMaven(first);
  expect(a.packages).toContainEqual({ name: 'junit:junit', version: '4.13.2' });
  expect(existsSync(join(junit(first.depsDir), '_remote.repositories'))).toBe(true);
  await addToStore(join(first.depsDir, 'm2'), store, 'a', HOST_BOOKKEEPING);
  expect(await storeSettled(store)).toBe(true);

  // Gson is new: downloaded, while JUnit comes from the store.
  const withGson = { ...fetchContext(await project(join(dir, 'b'), GSON), asOf), store };
  depsDirs.push(withGson.depsDir);
  const b = await fetchMaven(withGson);
  expect(b.packages).toContainEqual({ name: 'com.google.code.gson:gson', version: '2.10.1' });
  expect(b.packages).toEqual(expect.arrayContaining(a.packages));
  expect(b.notes.join('\n')).toMatch(/artifact versions the build read taken from the repository's store/);
  expect(existsSync(join(junit(withGson.depsDir), 'junit-4.13.2.jar'))).toBe(true);
  expect(existsSync(join(junit(withGson.depsDir), '_remote.repositories'))).toBe(false);
  const gson = join(withGson.depsDir, 'm2', 'com', 'google', 'code', 'gson', 'gson', '2.10.1');
  expect(existsSync(join(gson, '_remote.repositories'))).toBe(true);
  await addToStore(join(withGson.depsDir, 'm2'), store, 'b', HOST_BOOKKEEPING);

  // The first POM again, with Gson in the store: nothing downloaded, and the same packages as the fetch without a store.
  const held = await listing(store);
  const again = { ...fetchContext(await project(join(dir, 'c')), asOf), store };
  depsDirs.push(again.depsDir);
  const c = await fetchMaven(again);
  expect(c.packages).toEqual(a.packages);
  expect(
    existsSync(join(again.depsDir, 'm2', 'com', 'google', 'code', 'gson', 'gson', '2.10.1', 'gson-2.10.1.jar')),
  ).toBe(false);
  const recorded = (await listing(join(again.depsDir, 'm2'))).filter((p) => p.endsWith('_remote.repositories'));
  expect(recorded).toEqual([]);
  expect(await listing(store)).toEqual(held);
}
