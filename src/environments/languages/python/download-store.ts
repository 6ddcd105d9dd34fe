import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { requirementName } from './pyproject';

/**
 * A store of the distribution files pip downloaded, one directory per pinned release (`name==version`),
 * under the Python minor and platform tags they were chosen for and the index settings they came from.
 * A release's files never change on an index (a file name cannot be uploaded twice), so a pin found
 * here is the same files pip would fetch again: each fetch of a run downloads only the pins no earlier
 * fetch downloaded (Jinja's stages resolve the same dozen packages over and over, about 2.9 CPU-s of pip per
 * fetch). A pin is stored once pip has written every file of it; a directory is entered by rename, so
 * a fetch that stops half way leaves nothing a later one takes for whole.
 */
export class DownloadStore {
  private readonly dir: string;

  constructor(root: string, scope: unknown) {
    const key = createHash('sha256').update(JSON.stringify(scope)).digest('hex').slice(0, 16);
    this.dir = join(root, key);
  }

  /** A pinned line's release (`Jinja2==3.1.2 ; python_version >= "3.8"` → `jinja2==3.1.2`), or undefined where it is not one pin. */
  static release(line: string): { name: string; version: string } | undefined {
    const m = /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([A-Za-z0-9.+!_-]+)(?:\s*;.*)?$/.exec(line.trim());
    return m ? { name: requirementName(m[1]), version: m[2] } : undefined;
  }

  private entry(r: { name: string; version: string }): string {
    return join(this.dir, `${r.name}==${r.version}`);
  }

  /** Copies the stored files of the lines' pins into `dest`; returns the lines not stored (to download). */
  async take(lines: string[], dest: string): Promise<string[]> {
    const missing: string[] = [];
    for (const line of lines) {
      const r = DownloadStore.release(line);
      const entry = r && this.entry(r);
      if (!entry || !existsSync(entry)) {
        missing.push(line);
        continue;
      }
      for (const f of await readdir(entry)) await linkOrCopy(join(entry, f), join(dest, f));
    }
    return missing;
  }

  /** Stores the files of `lines`' pins found in `downloaded` (what pip wrote for them), each pin whole or not at all. */
  async keep(lines: string[], downloaded: string[], from: string): Promise<void> {
    for (const line of lines) {
      const r = DownloadStore.release(line);
      if (!r) continue;
      const files = downloaded.filter((f) => fileRelease(f, r.version) === r.name);
      if (!files.length || existsSync(this.entry(r))) continue;
      await mkdir(this.dir, { recursive: true });
      const partial = await mkdtemp(join(this.dir, '.partial-'));
      for (const f of files) await linkOrCopy(join(from, f), join(partial, f));
      await rename(partial, this.entry(r)).catch(() => rm(partial, { recursive: true, force: true }));
    }
  }
}

/**
 * The normalised project name of a distribution file of `version`, or undefined where the file is of
 * another version: wheels are `name-version-…whl` (name with `_` for `-`), sdists `name-version.ext`.
 */
export function fileRelease(file: string, version: string): string | undefined {
  const wheel = /^([^-]+)-([^-]+)-.*\.whl$/.exec(file);
  if (wheel) return wheel[2] === version ? requirementName(wheel[1]) : undefined;
  const sdist = /^(.+)-([^-]+)\.(tar\.gz|zip|tar\.bz2|tgz)$/.exec(file);
  if (sdist) return sdist[2] === version ? requirementName(sdist[1]) : undefined;
  return undefined;
}

/** A hard link where `from` and `to` share a file system, a copy where they do not; a file already at `to` stays. */
export async function linkOrCopy(from: string, to: string): Promise<void> {
  if (existsSync(to)) return;
  await link(from, to).catch(() => copyFile(from, to));
}
