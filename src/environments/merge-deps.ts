import { existsSync } from 'node:fs';
import { cp, lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TransientError } from '../errors';

/**
 * How what a PR's merge needs joins what its base needs, in one fetched directory (LanguageRecipe.withMerged),
 * for ecosystems that pin exact versions: a build at the base and a test run at the merge both find
 * theirs offline. What the base fetched is never overwritten.
 */

/** A cache directory (a Go module cache, a Maven local repository) under both: the merge's files added where the base's has none. */
export function unionDirectory(sub: string) {
  return async (baseDir: string, mergedDir: string): Promise<void> => {
    const from = join(mergedDir, sub);
    if (!existsSync(from)) return;
    // force: false keeps every file the base's fetch wrote (cp -n's exit status differs between coreutils releases).
    // Where the base has the entry, the base's stays; only a directory on both sides is walked into, for
    // what the merge adds inside it. A link (a Go module directory a fetch linked to the store's) is the
    // entry whole; two hard links to one store file (both fetches seeded from it) are not copied onto each
    // other (cp refuses a source and destination that are the same file, even where it would not overwrite).
    const filter = async (src: string, dest: string) => {
      const there = await lstat(dest).catch(() => undefined);
      return !there || (there.isDirectory() && (await lstat(src)).isDirectory());
    };
    await cp(from, join(baseDir, sub), { recursive: true, force: false, errorOnExist: false, filter }).catch((err) => {
      throw new TransientError(`cannot add the merge's ${sub} to the base's: ${(err as Error).message}`, {
        cause: err,
      });
    });
  };
}

/**
 * Two `cargo vendor` directories: a crate the base's lacks (by name and version) is added as
 * `name-version` (cargo reads every directory's Cargo.toml, whatever its name). Sources the merge
 * alone adds (a new git dependency) are not configured: its crates.io ones are.
 */
export async function unionVendor(baseDir: string, mergedDir: string): Promise<void> {
  const crates = async (dir: string) => {
    const found = new Map<string, string>();
    for (const name of await readdir(dir).catch(() => [])) {
      const manifest = await readFile(join(dir, name, 'Cargo.toml'), 'utf8').catch(() => '');
      const crate = /^name\s*=\s*"([^"]+)"/m.exec(manifest)?.[1];
      const version = /^version\s*=\s*"([^"]+)"/m.exec(manifest)?.[1];
      if (crate && version) found.set(`${crate}-${version}`, name);
    }
    return found;
  };
  const base = await crates(join(baseDir, 'vendor'));
  for (const [id, name] of await crates(join(mergedDir, 'vendor'))) {
    if (!base.has(id)) await cp(join(mergedDir, 'vendor', name), join(baseDir, 'vendor', id), { recursive: true });
  }
}
