import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The build requirements' resolutions (setuptools, wheel, the build backend's requirements, pytest where
 * the image lacks it), kept by what uv reads for them: the requirement lines, the Python, the date, the
 * platform, uv's version and the index settings. Unlike the project's own requirements (setup.py may read
 * any file of its tree), these lines are all uv reads, so two fetches with the same key resolve alike:
 * Jinja's 8 fetches on its last 13 stages resolved the same few lines as of the same quarter's start
 * again and again (0.75 CPU-s each). Lines naming a path or URL are not kept: what they point at may differ.
 */
export function buildResolutionKey(lines: string[], scope: unknown): string | undefined {
  if (lines.some((l) => /[/\\@]|^\.|file:/.test(l))) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([lines, scope]))
    .digest('hex')
    .slice(0, 24);
}

/** Fills `out` from the kept resolution `key` under `dir`, or with `resolve` and keeps what it wrote where it succeeded. */
export async function keptResolution<R extends { code: number }>(
  dir: string,
  key: string | undefined,
  out: string,
  resolve: () => Promise<R>,
): Promise<R | { code: 0; kept: true }> {
  const file = key && join(dir, `${key}.txt`);
  if (file && existsSync(file)) {
    await copyFile(file, out);
    return { code: 0, kept: true };
  }
  const r = await resolve();
  if (file && r.code === 0) {
    await mkdir(dir, { recursive: true });
    // Entered by rename: a reader never sees half a file.
    const partial = `${file}.${process.pid}.partial`;
    await copyFile(out, partial);
    await rename(partial, file);
  }
  return r;
}
