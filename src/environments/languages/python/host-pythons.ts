import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { filesFingerprint, runTool } from '../../host-tools';
import type { ProvidedPython } from './versions';
import { sharedUntilFailure } from '../../../shared-promise';

/** A CPython the host provides. */
export interface HostPython extends ProvidedPython {
  /** The full version ('3.13.0'). */
  full: string;
}

/** pyenv's versions directory: $PYENV_ROOT, else what `pyenv root` says, else pyenv's default ~/.pyenv. */
async function pyenvVersions(): Promise<string | undefined> {
  const root =
    process.env.PYENV_ROOT ||
    (await runTool('pyenv', ['root']).then(
      (r) => (r.code === 0 ? r.stdout.trim() : ''),
      () => '',
    )) ||
    join(homedir(), '.pyenv');
  const dir = join(root, 'versions');
  return existsSync(dir) ? dir : undefined;
}

/** What a prefix's python3 is, or undefined where it is not a CPython 3 that runs here. Symlinks are resolved (pyenv aliases): the image gets the real directory. */
async function probe(path: string): Promise<HostPython | undefined> {
  if (!existsSync(join(path, 'bin', 'python3'))) return undefined;
  const prefix = realpathSync(path);
  const python = join(prefix, 'bin', 'python3');
  const r = await runTool(python, [
    '-c',
    'import sys, platform; print(platform.python_implementation(), "%d.%d.%d" % sys.version_info[:3])',
  ]).catch(() => undefined);
  const m = r?.code === 0 ? /^CPython (\d+\.\d+)\.(\d+)$/.exec(r.stdout.trim()) : null;
  if (!m) return undefined;
  return { version: m[1], full: `${m[1]}.${m[2]}`, prefix };
}

/** Size and modification time of a prefix's python3 and libpython: they change when the interpreter is rebuilt. */
export function prefixFingerprint(prefix: string): string {
  const lib = join(prefix, 'lib');
  const libs = existsSync(lib)
    ? readdirSync(lib)
        .filter((f) => /^libpython.*\.so\.1\.0$/.test(f))
        .map((f) => join(lib, f))
    : [];
  return filesFingerprint([join(prefix, 'bin', 'python3'), ...libs]);
}

const found = new Map<string, Promise<HostPython[]>>();

/**
 * The CPython installations the host provides: every version pyenv built, then the configured prefixes
 * (environments.pythons). One per minor: a configured prefix wins over pyenv's, a newer patch release
 * over an older one. Looked up once per process (and PYENV_ROOT).
 */
export function hostPythons(configured: string[] = []): Promise<HostPython[]> {
  const key = [process.env.PYENV_ROOT ?? '', ...configured].join('\0');
  return sharedUntilFailure(found, key, async () => {
    const versions = await pyenvVersions();
    const pyenv = versions
      ? readdirSync(versions)
          .sort()
          .map((v) => join(versions, v))
      : [];
    const probed = await Promise.all([...pyenv, ...configured.map((p) => resolve(p))].map(probe));
    const byMinor = new Map<string, HostPython>();
    const patch = (p: HostPython) => Number(p.full.split('.')[2]);
    for (const [i, p] of probed.entries()) {
      if (!p) continue;
      const had = byMinor.get(p.version);
      if (!had || i >= pyenv.length || patch(p) > patch(had)) byMinor.set(p.version, p);
    }
    return [...byMinor.values()];
  });
}
