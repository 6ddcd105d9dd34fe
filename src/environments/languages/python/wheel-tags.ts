import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { compareVersions } from '../host-command';

/** The images' platform (Debian bookworm, whatever the Python): what wheels are resolved and fetched for. */
export const GLIBC_MINOR = 36;

/** Wheels' platform tags that bookworm's glibc 2.36 runs, newest first (pip 23 does not widen one tag to older ones). */
const ALL_PLATFORMS = [
  ...Array.from({ length: GLIBC_MINOR - 16 }, (_, i) => `manylinux_2_${GLIBC_MINOR - i}_x86_64`),
  'manylinux2014_x86_64',
  'manylinux2010_x86_64',
  'manylinux1_x86_64',
  'linux_x86_64',
];

/** The pip release from which each manylinux tag installs (PEP 513, 571, 599, 600): an older pip refuses such a wheel. */
const PLATFORM_SINCE: Array<[RegExp, string]> = [
  [/^manylinux_2_/, '20.3'],
  [/^manylinux2014_/, '19.3'],
  [/^manylinux2010_/, '19.0'],
];

/**
 * The wheel tags a fetch downloads for: the ABIs of CPython `minor` and the platforms the pip that
 * installs them (`installerPip`; uv, which reads every tag, where it is undefined) accepts. CPython
 * before 3.8 has an ABI of its own, `cp36m` (pymalloc), not `cp36`: without it pip finds no compiled
 * wheel of a package with a C extension for 3.6 or 3.7 and downloads its sdist, which the host then
 * prepares and tries to build into a wheel, and the image compiles. Python 3.6's own pip (18.1) does
 * not install a manylinux2010 wheel, so its venvs get the manylinux1 ones or the sdist, as before.
 */
export function wheelTags(minor: string, installerPip?: string): { abis: string[]; platforms: string[] } {
  const cp = `cp${minor.replace('.', '')}`;
  const abis = [...(compareVersions(minor, '3.8') < 0 ? [`${cp}m`] : []), cp, 'abi3', 'none'];
  const platforms = installerPip
    ? ALL_PLATFORMS.filter((p) => {
        const since = PLATFORM_SINCE.find(([tag]) => tag.test(p))?.[1];
        return !since || compareVersions(installerPip, since) >= 0;
      })
    : ALL_PLATFORMS;
  return { abis, platforms };
}

/** The wheels in an interpreter's `ensurepip/_bundled` directory (`dir`), by project name and version: what ensurepip installs. */
export async function bundledWheels(dir: string): Promise<Array<{ name: string; version: string }>> {
  return (await readdir(dir).catch(() => [] as string[]))
    .map((f) => /^([A-Za-z0-9_.]+)-([^-]+)-.*\.whl$/.exec(f))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => ({ name: m[1], version: m[2] }));
}

/**
 * The version of the pip that `python -m venv` installs from a Python prefix (its ensurepip's bundled
 * wheel), or undefined where none is found there (a Debian Python's comes from python-wheels).
 */
export async function bundledPip(prefix: string, minor: string): Promise<string | undefined> {
  const wheels = await bundledWheels(join(prefix, 'lib', `python${minor}`, 'ensurepip', '_bundled'));
  const versions = wheels
    .filter((w) => w.name === 'pip' && /^[\d.]+$/.test(w.version))
    .map((w) => w.version)
    .sort(compareVersions);
  return versions.at(-1);
}
