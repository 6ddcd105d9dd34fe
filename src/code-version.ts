import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

/**
 * A digest of chainsmith's own code: every module of the tree this file was loaded from (dist/src, or src
 * under ts-jest). Part of a stored result's key where the result depends on how the code reads a run (a test
 * report's parser, a reason's rule), so that a result another version of the code computed is not reused:
 * a number bumped by hand was forgotten when a parser changed, and reruns read stale results.
 */
export function codeVersion(): string {
  version ??= treeDigest(__dirname);
  return version;
}

/** The digest of the modules under `dir` (`.js` and `.ts`, not declarations or source maps): their paths and bytes. */
export function treeDigest(dir: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts'))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(dir, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}
