import { posix } from 'node:path';
import { git } from '../../../git';
import type { RepoFiles } from '../../contract';

/** More local manifests than any crate's workspace here holds: a bound on the walk, not a limit met. */
const MAX_MANIFESTS = 200;

/** The paths directly under a directory of the repository ('crates/a', 'crates/b'), where it can be listed. */
export type ListDirectory = (dir: string) => Promise<string[]>;

/** Lists a directory at one commit of a clone. */
export const gitDirectory =
  (repoPath: string, sha: string): ListDirectory =>
  async (dir) =>
    (await git(repoPath, ['ls-tree', '--name-only', sha, '--', `${dir}/`]).catch(() => '')).split('\n').filter(Boolean);

/**
 * The Cargo.toml files of the repository's own crates besides the root's: the root's workspace members
 * and the local crates its manifests name by `path`, then theirs, as cargo finds them. Each declares
 * dependencies that cargo resolves with the root's, so a change to one (a member's syn "1.0.5" →
 * "1.0.11") is a change to what the build fetches. A member named by a glob in its last part
 * (`crates/*`) is each directory it matches, where `list` can list its parent.
 */
export async function localManifests(files: RepoFiles, root: string, list?: ListDirectory): Promise<string[]> {
  const found: string[] = [];
  const queue: Array<{ dir: string; text: string }> = [{ dir: '', text: root }];
  while (queue.length && found.length < MAX_MANIFESTS) {
    const { dir, text } = queue.shift()!;
    for (const named of await namedDirectories(text, dir, list)) {
      const manifest = `${named}/Cargo.toml`;
      if (found.includes(manifest)) continue;
      const read = await files.read(manifest);
      if (read === undefined) continue;
      found.push(manifest);
      queue.push({ dir: named, text: read });
    }
  }
  return found.sort();
}

/**
 * The directories a manifest in `dir` names, from the root: its workspace's `members`, and every `path`
 * value (a dependency's; a target's `path = "src/main.rs"` names a file, in which no Cargo.toml is found).
 */
async function namedDirectories(manifest: string, dir: string, list?: ListDirectory): Promise<string[]> {
  const members = /^\s*members\s*=\s*\[([^\]]*)\]/m.exec(manifest)?.[1] ?? '';
  // TOML's basic strings ("…") and literal ones ('…'): flate2 names its member `members = ['systest']`.
  const quoted = [...members.matchAll(/"([^"]+)"|'([^']+)'/g)].map((m) => m[1] ?? m[2]);
  const paths = [...manifest.matchAll(/\bpath\s*=\s*(?:"([^"]+)"|'([^']+)')/g)].map((m) => m[1] ?? m[2]);
  const named: string[] = [];
  for (const p of [...quoted, ...paths]) {
    const at = posix.normalize(posix.join(dir, p)).replace(/\/$/, '');
    if (at === '.' || at.startsWith('..') || posix.isAbsolute(at)) continue;
    if (!/[*?[]/.test(at)) named.push(at);
    else if (list && !/[*?[]/.test(posix.dirname(at)))
      named.push(...(await list(posix.dirname(at))).filter(globOf(at)));
  }
  return named;
}

/** Whether a path matches a glob's last part (`*` and `?` within it; a class `[…]` as written). */
function globOf(glob: string): (path: string) => boolean {
  const pattern = glob
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '[^/]*')
    .replace(/\?/g, '[^/]');
  const re = new RegExp(`^${pattern}$`);
  return (path) => re.test(path);
}
