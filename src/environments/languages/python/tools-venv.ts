import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TransientError } from '../../../errors';
import { runTool, tail } from '../../host-tools';
import { bundledWheels } from './wheel-tags';

/**
 * What pip runs of the tools venv are given: the host may forbid writing bytecode
 * (PYTHONDONTWRITEBYTECODE); the venv's pip is installed without it, so its first run of each
 * command writes what it imports, and later runs read it instead of compiling it again in memory.
 */
export const TOOLS_PIP_ENV = { PYTHONDONTWRITEBYTECODE: undefined };

/**
 * The uv the tools venv holds. Pinned, not the newest: a replay resolves releases of 2010–2020, and uv
 * moves towards strict PEP 625 sdists (from 0.12 it refuses `.tar.bz2` ones, which many releases of
 * that era shipped alone, Twisted 17.9–20.3 among them; its roadmap also drops sdists named otherwise
 * than `{name}-{version}.tar.gz`), so a newer uv resolves fewer old histories and a new machine would
 * resolve otherwise than the one the tests ran on. 0.11.33 is the last release that reads every
 * legacy sdist format. Where the host's index does not serve it, the newest is taken (ensureUv says so).
 */
export const UV_PIN = '0.11.33';

/**
 * The venv that holds uv and the pip that downloads, made with the host's `python3`. Not by
 * ensurepip (5.4 CPU-s on this host: it runs pip from its wheel, compiling it at every import, and
 * byte-compiles all of pip and setuptools): the host's own pip installs into a venv made without pip
 * (`pip --python`, pip 22.3 and later) the same pip and setuptools ensurepip would (the wheels of the
 * interpreter's `ensurepip/_bundled`), not byte-compiled (its runs write what they import: TOOLS_PIP_ENV),
 * and uv, in one run. Where that cannot be done (no bundled wheels, an older host pip) the venv is
 * made with ensurepip as before.
 */
export async function makeToolsVenv(venv: string): Promise<void> {
  if (!(await makeToolsVenvWith(venv, `uv==${UV_PIN}`))) await makeToolsVenvWith(venv, 'uv', true);
}

/** makeToolsVenv with one requirement for uv: false where the venv could not be made with it (an error if `last`). */
async function makeToolsVenvWith(venv: string, uvRequirement: string, last = false): Promise<boolean> {
  const python = join(venv, 'bin', 'python');
  const bare = await runTool('python3', ['-m', 'venv', '--clear', '--without-pip', venv]);
  if (bare.code === 0) {
    const dir = await runTool(python, ['-c', 'import ensurepip, os; print(os.path.dirname(ensurepip.__file__))']);
    const bundled = join(dir.stdout.trim(), '_bundled');
    const pins = (await bundledWheels(bundled)).map((w) => `${w.name}==${w.version}`);
    if (dir.code === 0 && pins.some((p) => p.startsWith('pip=='))) {
      const r = await runTool('python3', [
        '-m',
        'pip',
        '--python',
        python,
        'install',
        '--quiet',
        '--disable-pip-version-check',
        '--no-compile',
        '--find-links',
        bundled,
        ...pins,
        uvRequirement,
      ]);
      if (r.code === 0) return true;
    }
  }
  const made = await runTool('python3', ['-m', 'venv', '--clear', venv]);
  if (made.code !== 0) throw new TransientError(`python3 cannot create a venv for uv in ${venv}: ${tail(made.stderr)}`);
  const pip = await runTool(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', uvRequirement]);
  if (pip.code === 0) return true;
  if (last) throw new TransientError(`pip cannot install uv into ${venv}: ${tail(pip.stderr)}`);
  return false;
}

/** The version of a package installed in a venv, read from its dist-info directory's name (no Python start). */
export async function installedVersion(venv: string, name: string): Promise<string> {
  const lib = join(venv, 'lib');
  const distInfo = new RegExp(`^${name}-([^-]+)\\.dist-info$`, 'i');
  for (const py of await readdir(lib).catch(() => [] as string[])) {
    const found = (await readdir(join(lib, py, 'site-packages')).catch(() => [] as string[]))
      .map((f) => distInfo.exec(f)?.[1])
      .find((v) => v);
    if (found) return found;
  }
  return 'unknown';
}
