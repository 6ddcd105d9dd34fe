import { randomBytes } from 'node:crypto';
import { chmod, copyFile, link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TransientError } from '../errors';

/**
 * One store of fetched dependencies per repository history (LanguageRecipe.dependencyStore), which
 * every fetch adds to and none removes from. Entries are addressed by coordinates (a Maven artifact's
 * group/artifact/version path, a Go module's path@version): a file already there is the same file, so it is kept, and a fetch's
 * new files are hard links to its own (a copy across file systems), each put in place by a rename so
 * that a sandbox reading the store never sees half a file. Metadata files (`maven-metadata*.xml`,
 * the versions a registry lists for a version range) are the one exception: the later fetch's
 * replaces the earlier's (by its own `lastUpdated`), since a registry only adds versions and the later
 * list holds the earlier.
 */
const REPLACED = /^maven-metadata.*\.xml$/;

/** Adds what `from` holds to `store`, leaving out names `leaveOut` matches; written once per fetch (`done` marks it). */
export async function addToStore(from: string, store: string, done: string, leaveOut?: RegExp): Promise<void> {
  const marker = join(store, '.added', done);
  if (existsSync(marker)) return;
  // Until the marker is written, the store may hold part of an entry (a module's directory without all its files): see storeSettled.
  const adding = join(store, '.adding', done);
  await mkdir(join(store, '.adding'), { recursive: true });
  await writeFile(adding, '');
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(from, rel), { withFileTypes: true }).catch(() => []);
    // Readable by the sandboxes' user whatever the worker's umask (a hard link keeps the fetch's own modes, made readable there).
    if (entries.length) await mkdir(join(store, rel), { recursive: true }).then(() => chmod(join(store, rel), 0o755));
    for (const entry of entries) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !leaveOut?.test(entry.name)) await place(join(from, path), join(store, path));
    }
  };
  try {
    await walk('');
    await mkdir(join(store, '.added'), { recursive: true });
    await writeFile(marker, '');
    await rm(adding, { force: true });
  } catch (err) {
    throw new TransientError(`cannot add ${from} to the dependency store ${store}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Whether every entry in the store is whole: the store exists and no addition is under way or was cut
 * short (a crash leaves its `.adding` mark until the same fetch is added again). Only then may a fetcher
 * take an entry's presence as the entry (FetchContext.store).
 */
export async function storeSettled(store: string): Promise<boolean> {
  if (!existsSync(join(store, '.added'))) return false;
  return (await readdir(join(store, '.adding')).catch(() => [])).length === 0;
}

async function place(src: string, dst: string): Promise<void> {
  if (!REPLACED.test(dst.slice(dst.lastIndexOf('/') + 1))) {
    // A hard link names a whole file at once, so it is made straight in place: one system call per new
    // file, where an existence check, a temporary name, a rename and its cleanup were four more. An
    // entry already there is kept (EEXIST); another file system falls back to a copy below.
    const failed = await link(src, dst).then(
      () => undefined,
      (err: NodeJS.ErrnoException) => err,
    );
    if (!failed || failed.code === 'EEXIST') return;
  } else if (existsSync(dst) && (await lastUpdated(src)) <= (await lastUpdated(dst))) return;
  // A copy (another file system) or a replacement goes under a temporary name, renamed into place whole.
  const tmp = `${dst}.adding-${randomBytes(4).toString('hex')}`;
  try {
    await link(src, tmp).catch(async () => {
      await copyFile(src, tmp);
      // Readable by all; executable where the fetch's file is (a Go toolchain module's binaries).
      await chmod(tmp, (await stat(src)).mode & 0o111 ? 0o755 : 0o644);
    });
    await rename(tmp, dst);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** A metadata file's `<lastUpdated>` stamp (yyyyMMddHHmmss), '' where it has none. */
async function lastUpdated(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return /<lastUpdated>\s*(\d+)\s*</.exec(text)?.[1] ?? '';
}
