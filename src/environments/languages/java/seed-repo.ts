import { copyFile, link, mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** 2000-01-01: the access time a seeded POM is given, older than any read of it during the fetch. */
const UNREAD = new Date(946684800_000);
/** Registry listings (a range's, a plugin prefix's): never seeded, an online fetch asks the registry again as a fresh one does. */
const LISTING = /^maven-metadata.*\.xml$/;

/**
 * A fetch's empty local repository seeded from the repository's Maven store (FetchContext.store) with
 * every artifact version it holds, so that `mvn test` online downloads only what no earlier fetch
 * brought (jsoup at #2556's base: 9.8 CPU-s with 477 downloads, 4.1 with none). Maven takes an
 * artifact it finds in its local repository without a record of where it came from (the store leaves
 * those records out) as installed there, and never writes into an artifact file it has, so jars and
 * checksums are hard links to the store's. POMs are copies with an access time in the past: Maven
 * reads the POM of every artifact it resolves (and of parents and imported BOMs), so after the fetch
 * a POM read marks a version the build used; `prune` removes the versions it did not read, and the
 * fetch's repository (its package list, what joins the store) holds what this fetch's build used, not
 * the whole store. Returns undefined, seeding nothing, where the file system does not record reads.
 */
export async function seedFromStore(
  store: string,
  repo: string,
  leaveOut?: RegExp,
): Promise<{ versions: number; prune(): Promise<number> } | undefined> {
  await mkdir(repo, { recursive: true });
  if (!(await readsRecorded(repo))) return undefined;
  const seeded = new Map<string, { pom: string; files: string[] }>();
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(store, rel), { withFileTypes: true }).catch(() => []);
    // The store's own bookkeeping (`.added`, `.adding`) and half-placed files (`.adding-…`) are not artifacts.
    const files = entries
      .filter((e) => e.isFile() && !e.name.includes('.adding') && !LISTING.test(e.name) && !leaveOut?.test(e.name))
      .map((e) => e.name);
    const pom = files.find((f) => f.endsWith('.pom'));
    // A version directory is seeded whole where its POM is there to mark it read; one without is downloaded as before.
    if (pom && rel) {
      await mkdir(join(repo, rel), { recursive: true });
      for (const f of files) {
        const to = join(repo, rel, f);
        if (f.endsWith('.pom')) {
          await copyFile(join(store, rel, f), to);
          await utimes(to, UNREAD, new Date());
        } else await link(join(store, rel, f), to).catch(() => copyFile(join(store, rel, f), to));
      }
      seeded.set(rel, { pom, files });
    }
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) await walk(join(rel, e.name));
  };
  await walk('');
  const prune = async () => {
    let removed = 0;
    for (const [rel, { pom, files }] of seeded) {
      const read = (await stat(join(repo, rel, pom)).catch(() => undefined))?.atimeMs ?? 0;
      if (read > UNREAD.getTime() + 1000) continue;
      for (const f of files) await rm(join(repo, rel, f), { force: true });
      removed += 1;
    }
    return removed;
  };
  return { versions: seeded.size, prune };
}

/** Whether reading a file here updates its access time (not on a `noatime` mount): what marks a seeded POM as used. */
async function readsRecorded(dir: string): Promise<boolean> {
  const probe = join(dir, '.chainsmith-atime-probe');
  try {
    await writeFile(probe, 'probe');
    await utimes(probe, UNREAD, new Date());
    await readFile(probe);
    return (await stat(probe)).atimeMs > UNREAD.getTime() + 1000;
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
  }
}
