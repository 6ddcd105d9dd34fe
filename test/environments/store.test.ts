import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { addToStore, storeSettled } from '../../src/environments/store';

async function tree(root: string, files: Record<string, string>): Promise<string> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const metadata = (stamp: string, versions: string[]) =>
  `<metadata><versioning><versions>${versions.map((v) => `<version>${v}</version>`).join('')}</versions><lastUpdated>${stamp}</lastUpdated></versioning></metadata>`;

test("fetches join one store: an entry already there is kept, a newer registry listing replaces an older one, the resolver's host bookkeeping stays out", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-store-'));
  const store = join(dir, 'store');
  const leaveOut = /^_remote\.repositories$|\.lastUpdated$/;
  const first = await tree(join(dir, 'first'), {
    'junit/junit/4.12/junit-4.12.jar': 'junit 4.12',
    'junit/junit/4.12/_remote.repositories': 'junit-4.12.jar>host-mirror=',
    'junit/junit/maven-metadata-central.xml': metadata('20200101000000', ['4.12']),
  });
  const second = await tree(join(dir, 'second'), {
    // The same coordinates are the same artifact: the store's copy stays as it was.
    'junit/junit/4.12/junit-4.12.jar': 'another download of junit 4.12',
    'junit/junit/4.13/junit-4.13.jar': 'junit 4.13',
    'junit/junit/4.13/junit-4.13.pom.lastUpdated': 'failed once',
    'junit/junit/maven-metadata-central.xml': metadata('20210101000000', ['4.12', '4.13']),
  });
  const older = await tree(join(dir, 'older'), {
    'junit/junit/maven-metadata-central.xml': metadata('20190101000000', ['4.11']),
  });

  await addToStore(first, store, 'first', leaveOut);
  await addToStore(second, store, 'second', leaveOut);
  // A fetch an earlier process left on disk, added after a newer one: its older listing does not win.
  await addToStore(older, store, 'older', leaveOut);

  const read = (path: string) => readFile(join(store, path), 'utf8');
  expect(await read('junit/junit/4.12/junit-4.12.jar')).toBe('junit 4.12');
  expect(await read('junit/junit/4.13/junit-4.13.jar')).toBe('junit 4.13');
  expect(await read('junit/junit/maven-metadata-central.xml')).toContain('<version>4.13</version>');
  expect(existsSync(join(store, 'junit/junit/4.12/_remote.repositories'))).toBe(false);
  expect(existsSync(join(store, 'junit/junit/4.13/junit-4.13.pom.lastUpdated'))).toBe(false);
  // Linked, not copied: one more fetch costs no second copy of what it brings.
  expect((await stat(join(store, 'junit/junit/4.13/junit-4.13.jar'))).ino).toBe(
    (await stat(join(second, 'junit/junit/4.13/junit-4.13.jar'))).ino,
  );

  // Each file is linked straight into place: no temporary name is left beside the entries.
  const names = (await readdir(store, { recursive: true })) as string[];
  expect(names.filter((n) => n.includes('.adding-'))).toEqual([]);
  expect(names).toContain(join('junit', 'junit', '4.13', 'junit-4.13.jar'));

  // A fetch is added once: its marker says so, and a second call changes nothing.
  await writeFile(join(second, 'junit/junit/4.14.jar'), 'not added again');
  await addToStore(second, store, 'second', leaveOut);
  expect(existsSync(join(store, 'junit/junit/4.14.jar'))).toBe(false);
});

test('a store is settled only where no addition is under way or was cut short', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chainsmith-store-'));
  const store = join(dir, 'store');
  expect(await storeSettled(store)).toBe(false);
  await addToStore(await tree(join(dir, 'first'), { 'a/b@v1/b.go': 'package b' }), store, 'first');
  expect(await storeSettled(store)).toBe(true);
  // A process killed while adding leaves its mark: an entry may be there without all its files.
  await writeFile(join(store, '.adding', 'second'), '');
  expect(await storeSettled(store)).toBe(false);
  // The same fetch added again (the next process that uses it) completes it and clears the mark.
  await addToStore(await tree(join(dir, 'second'), { 'a/c@v1/c.go': 'package c' }), store, 'second');
  expect(existsSync(join(store, 'a/c@v1/c.go'))).toBe(true);
  expect(await storeSettled(store)).toBe(true);
});
