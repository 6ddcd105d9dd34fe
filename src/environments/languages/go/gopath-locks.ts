import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * godep's own GOPATH inside the repository (its dependencies copied in, `godep go test` put it on
 * GOPATH): where a repository has one, it joins GOPATH after the fetched dependencies.
 */
export const GODEP_WORKSPACE = 'Godeps/_workspace';

/** A revision a GOPATH-era lock file pins: `path` is a package or repository root, `file` the lock it came from. */
export interface LockedRevision {
  path: string;
  revision: string;
  file: string;
}

/** The dependency tools of the GOPATH era and how each names a path and its revision. */
const LOCKS: Array<{ file: string; read(text: string): Array<{ path: string; revision: string }> }> = [
  {
    file: 'Godeps/Godeps.json',
    read: (text) =>
      ((JSON.parse(text) as { Deps?: Array<{ ImportPath?: string; Rev?: string }> }).Deps ?? []).map((d) => ({
        path: d.ImportPath ?? '',
        revision: d.Rev ?? '',
      })),
  },
  {
    file: 'vendor/vendor.json',
    read: (text) =>
      ((JSON.parse(text) as { package?: Array<{ path?: string; revision?: string }> }).package ?? []).map((p) => ({
        path: p.path ?? '',
        revision: p.revision ?? '',
      })),
  },
  // YAML and TOML read by their line shapes: each entry's name line comes before its revision line.
  { file: 'glide.lock', read: (text) => pairs(text, /^\s*-\s*name:\s*(\S+)/, /^\s*version:\s*([0-9a-f]{7,40})\s*$/) },
  {
    file: 'Gopkg.lock',
    read: (text) => pairs(text, /^\s*name\s*=\s*"([^"]+)"/, /^\s*revision\s*=\s*"([0-9a-f]{7,40})"/),
  },
];

/** The lock files the era's tools wrote: what they pin decides a fetch. */
export const LOCK_FILES = LOCKS.map((l) => l.file);

function pairs(text: string, name: RegExp, revision: RegExp): Array<{ path: string; revision: string }> {
  const found: Array<{ path: string; revision: string }> = [];
  let path: string | undefined;
  for (const line of text.split('\n')) {
    path = name.exec(line)?.[1] ?? path;
    const rev = revision.exec(line)?.[1];
    if (path && rev) {
      found.push({ path, revision: rev });
      path = undefined;
    }
  }
  return found;
}

/** Every revision the checkout's lock files pin; a lock that does not parse pins nothing. */
export async function lockedRevisions(srcDir: string): Promise<LockedRevision[]> {
  const found: LockedRevision[] = [];
  for (const lock of LOCKS) {
    const text = await readFile(join(srcDir, lock.file), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    try {
      for (const { path, revision } of lock.read(text))
        if (path && revision) found.push({ path, revision, file: lock.file });
    } catch {
      continue;
    }
  }
  return found;
}

/** The revision a lock pins for module `module`: an entry for the module itself or for a package inside it. */
export function lockedFor(locks: LockedRevision[], module: string): LockedRevision | undefined {
  return locks.find((l) => l.path === module || l.path.startsWith(`${module}/`));
}
