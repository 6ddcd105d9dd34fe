import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type Docker from 'dockerode';

/**
 * Below this many free bytes on a disk validation writes to (its data directory, the resolvers'
 * caches under the home and temporary directories, Docker's root), a stage's failure may be the disk's:
 * a resolver that cannot write its cache, an image layer, a test's temporary files.
 */
export const LOW_DISK_BYTES = 512 * 1024 * 1024;

const dockerRoots = new WeakMap<Docker, Promise<string | undefined>>();

/** The nearest directory of `path` that exists (a data directory not made yet is on its parent's disk). */
function existing(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Which disk validation writes to is all but full, as a sentence, or undefined where every one has
 * room. Docker's root is read from the engine once (it is skipped where it is not a path here).
 */
export async function diskAlmostFull(
  docker: Docker,
  dirs: string[],
  min: number = LOW_DISK_BYTES,
): Promise<string | undefined> {
  let root = dockerRoots.get(docker);
  if (!root) {
    root = docker.info().then(
      (info: { DockerRootDir?: string }) => info.DockerRootDir,
      () => undefined,
    );
    dockerRoots.set(docker, root);
  }
  const candidates = [...dirs, tmpdir(), homedir(), await root].filter((d): d is string => !!d);
  for (const dir of candidates) {
    const s = await statfs(existing(dir)).catch(() => undefined);
    const free = s ? s.bavail * s.bsize : Infinity;
    if (free < min) return `the disk holding ${dir} has ${Math.floor(free / 1048576)} MB free`;
  }
  return undefined;
}
