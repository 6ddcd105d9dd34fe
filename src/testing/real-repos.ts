import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { packageRoot } from '../paths';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The bundled real repositories (../shared/repos): one per language of the paper's data. */
export const REAL_REPOS = {
  'pallets/jinja': 'python',
  'serde-rs/json': 'rust',
  'spf13/cobra': 'go',
  'jhy/jsoup': 'java',
  'DaveGamble/cJSON': 'c',
} as const;
export type RealRepoName = keyof typeof REAL_REPOS;

/** Where the bundles are, beside the project; absent on machines without the shared folder. */
export function bundlesDir(): string {
  return resolve(packageRoot(), '..', 'shared', 'repos');
}

/**
 * A working clone of a bundled repository with its `refs/pull/*` refs, made once under `cacheDir`
 * and reused; undefined (with the reason) where the bundle is not on this machine.
 */
export async function realRepo(name: RealRepoName, cacheDir: string): Promise<{ path: string } | { missing: string }> {
  const bundle = join(bundlesDir(), `${name.replace('/', '+')}.bundle`);
  if (!existsSync(bundle)) return { missing: `${bundle} is not on this machine` };
  const path = join(cacheDir, name.replace('/', '+'));
  if (existsSync(join(path, '.git'))) return { path };
  await mkdir(cacheDir, { recursive: true });
  // Cloned beside its final place and renamed: an interrupted clone is never taken for a whole one.
  const tmp = `${path}.${process.pid}.tmp`;
  await rm(tmp, { recursive: true, force: true });
  await run('git', ['clone', '-q', bundle, tmp], { maxBuffer: 1 << 26 });
  await run('git', ['-C', tmp, 'fetch', '-q', bundle, '+refs/pull/*:refs/pull/*'], { maxBuffer: 1 << 26 });
  await rename(tmp, path);
  return { path };
}
