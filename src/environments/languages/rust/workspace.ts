import { posix } from 'node:path';
import type { RepoFiles } from '../../contract';

/** More local manifests than any crate's workspace here holds: a bound on the walk, not a limit met. */
const MAX_MANIFESTS = 200;

/**
 * The Cargo.toml files of the repository's own crates besides the root's: the root's workspace members
 * and the local crates its manifests name by `path`, then theirs, as cargo finds them. Each declares
 * dependencies that cargo resolves with the root's, so a change to one (a member's syn "1.0.5" →
 * "1.0.11") is a change to what the build fetches. Members named by a glob (`crates/*`) are not listed:
 * the files at hand are read by path.
 */
export async function localManifests(files: RepoFiles, root: string): Promise<string[]> {
  const found: string[] = [];
  const queue: Array<{ dir: string; text: string }> = [{ dir: '', text: root }];
  while (queue.length && found.length < MAX_MANIFESTS) {
    const { dir, text } = queue.shift()!;
    for (const named of namedDirectories(text)) {
      const at = posix.normalize(posix.join(dir, named)).replace(/\/$/, '');
      if (at === '.' || at.startsWith('..') || posix.isAbsolute(at)) continue;
      const manifest = `${at}/Cargo.toml`;
      if (found.includes(manifest)) continue;
      const read = await files.read(manifest);
      if (read === undefined) continue;
      found.push(manifest);
      queue.push({ dir: at, text: read });
    }
  }
  return found.sort();
}

/**
 * The directories a manifest names: its workspace's `members` without a glob, and every `path` value
 * (a dependency's; a target's `path = "src/main.rs"` names a file, in which no Cargo.toml is found).
 */
function namedDirectories(manifest: string): string[] {
  const members = /^\s*members\s*=\s*\[([^\]]*)\]/m.exec(manifest)?.[1] ?? '';
  const quoted = (text: string) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const paths = [...manifest.matchAll(/\bpath\s*=\s*"([^"]+)"/g)].map((m) => m[1]);
  return [...quoted(members), ...paths].filter((p) => !/[*?[]/.test(p));
}
