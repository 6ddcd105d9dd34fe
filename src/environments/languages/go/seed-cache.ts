import { existsSync } from 'node:fs';
import { link, mkdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A module path or version as the module cache spells it on disk: each capital letter as `!` and its lower case. */
export function escapeModulePath(path: string): string {
  return path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** What a download of one module version leaves under cache/download/<path>/@v/. */
const DOWNLOAD_FILES = ['info', 'mod', 'zip', 'ziphash'];

/**
 * Seeds an empty module cache (a fetch's) with what the repository's store (FetchContext.store) holds of
 * the module versions go.sum names: their downloads hard-linked, their extracted directories linked to
 * the store's. `go mod download` then downloads and extracts only what the store lacks, and checks
 * every seeded module against go.sum as it checks its own downloads (a download's `.ziphash`, a
 * `.mod`'s bytes), so a go.sum that disagrees with the store still fails. The go command writes nothing
 * into a module that is whole, so nothing reaches the store through the links. Returns how many module
 * versions were seeded.
 */
export async function seedFromStore(store: string, srcDir: string, cache: string): Promise<number> {
  const sum = await readFile(join(srcDir, 'go.sum'), 'utf8').catch(() => '');
  const versions = new Set<string>();
  for (const line of sum.split('\n')) {
    const [path, version] = line.trim().split(/\s+/);
    if (path && version)
      versions.add(`${escapeModulePath(path)}@${escapeModulePath(version.replace(/\/go\.mod$/, ''))}`);
  }
  let seeded = 0;
  for (const id of versions) {
    const at = id.lastIndexOf('@');
    const [path, version] = [id.slice(0, at), id.slice(at + 1)];
    const from = join(store, 'cache', 'download', path, '@v');
    const files = DOWNLOAD_FILES.map((ext) => `${version}.${ext}`).filter((f) => existsSync(join(from, f)));
    if (!files.length) continue;
    const to = join(cache, 'cache', 'download', path, '@v');
    await mkdir(to, { recursive: true });
    for (const f of files) await link(join(from, f), join(to, f));
    // A directory is whole where its download's hash is there too (the go command writes the hash before it extracts).
    if (files.includes(`${version}.ziphash`) && existsSync(join(store, id))) {
      await mkdir(dirname(join(cache, id)), { recursive: true });
      await symlink(join(store, id), join(cache, id));
    }
    seeded += 1;
  }
  return seeded;
}
