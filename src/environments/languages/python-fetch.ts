import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { StageError, TransientError } from '../../errors';
import type { FetchContext, Resolution } from '../contract';
import { runTool, tail } from '../host-tools';
import { requirementName } from './pyproject';

/** The image's Python (Debian bookworm) and platform: what wheels are resolved and fetched for. */
export const PYTHON_VERSION = '3.11';
const GLIBC_MINOR = 36;
/** Wheels' platform tags that bookworm's glibc 2.36 runs, newest first (pip 23 does not widen one tag to older ones). */
const PLATFORMS = [
  ...Array.from({ length: GLIBC_MINOR - 16 }, (_, i) => `manylinux_2_${GLIBC_MINOR - i}_x86_64`),
  'manylinux2014_x86_64',
  'manylinux2010_x86_64',
  'manylinux1_x86_64',
  'linux_x86_64',
];

export interface PythonInputs {
  /** Files handed to the resolver as they are: pyproject.toml, setup.py or setup.cfg, requirement files. */
  sources: string[];
  /** Extras to include; 'all' asks the resolver for every extra. */
  extras: string[] | 'all';
  /** Extras a test run needs, tried alone when all of them do not resolve. */
  testExtras: string[];
  /** PEP 735 dependency groups to include. */
  groups: string[];
  /** The build backend's requirements, installed into the venv so the project installs without build isolation. */
  buildRequires: string[];
  /** uv.lock is taken as committed. */
  uvLock: boolean;
}

/**
 * Resolves a Python project's dependencies on the host with uv, as of `asOf` (`--exclude-newer`) for
 * CPython 3.11 on x86_64 glibc 2.36, and downloads them (wheels, an sdist where a package has none)
 * with pip into the dependency directory, with requirements.txt listing what the image installs.
 * Both read the host's pip configuration (index, extra index, find-links, certificate).
 */
export function pythonFetch(inputs: PythonInputs) {
  return async (ctx: FetchContext): Promise<Resolution> => {
    const tools = await ensureUv(ctx.toolsDir ?? join(homedir(), '.chainsmith', 'tools'), ctx);
    const env = await uvSettings(tools.python);
    const notes: string[] = [];
    const pinned = join(ctx.srcDir, '.chainsmith-pinned.txt');
    let lock: Resolution['lock'] = 'resolved';
    let resolved = false;
    if (inputs.uvLock) {
      const groups = inputs.groups.flatMap((g) => ['--group', g]);
      const r = await runTool(tools.uv, ['export', '--frozen', '--no-hashes', '--no-emit-project', '--no-header', '--no-default-groups', ...groups, '--all-extras', '-o', pinned], { cwd: ctx.srcDir, env, signal: ctx.signal });
      if (r.code === 0) {
        lock = 'committed';
        resolved = true;
      } else notes.push(`uv.lock could not be exported (${tail(r.stderr, 1)}); resolved from the project instead`);
    }
    const compile = (sources: string[], out: string) => [
      'pip', 'compile', ...sources,
      '--python-version', PYTHON_VERSION, '--python-platform', `x86_64-manylinux_2_${GLIBC_MINOR}`,
      '--exclude-newer', ctx.asOf.toISOString(), '--no-header', '--no-annotate', '--quiet', '-o', out,
    ];
    if (!resolved) {
      const base = [...compile(inputs.sources, pinned), ...inputs.groups.flatMap((g) => ['--group', g])];
      const attempts: string[][] = [inputs.extras === 'all' ? ['--all-extras'] : inputs.extras.flatMap((e) => ['--extra', e])];
      if (inputs.extras === 'all' || inputs.extras.length > inputs.testExtras.length) attempts.push(inputs.testExtras.flatMap((e) => ['--extra', e]));
      let failure = '';
      for (const [i, extras] of attempts.entries()) {
        const r = await runTool(tools.uv, [...base, ...extras], { cwd: ctx.srcDir, env, signal: ctx.signal });
        if (r.code === 0) {
          if (i > 0) notes.push(`not every extra resolves; resolved with the test extras only (${inputs.testExtras.join(', ') || 'none'})`);
          resolved = true;
          break;
        }
        failure = r.stderr;
      }
      if (!resolved) {
        const why = tail(failure);
        if (/No solution found|not found in the package registry|no versions of|Because .* depends on|Failed to (parse|read)|Distribution not found/i.test(why)) {
          throw new StageError(`uv cannot resolve the Python requirements as of ${ctx.asOf.toISOString().slice(0, 10)}:\n${why}`);
        }
        throw new TransientError(`uv pip compile failed:\n${why}`);
      }
    }
    // The build backend, resolved apart: a lock file need not hold it, and the project installs without build isolation.
    const build = join(ctx.srcDir, '.chainsmith-build-requirements.in');
    const buildPinned = join(ctx.srcDir, '.chainsmith-build-pinned.txt');
    await writeFile(build, [...inputs.buildRequires, 'setuptools', 'wheel'].join('\n') + '\n');
    const b = await runTool(tools.uv, compile([build], buildPinned), { cwd: ctx.srcDir, env, signal: ctx.signal });
    if (b.code !== 0) throw new StageError(`uv cannot resolve the build requirements (${inputs.buildRequires.join(', ')}):\n${tail(b.stderr)}`);
    // The project itself (editable, a local path) is installed from the working tree, not from here.
    const read = async (file: string) => (await readFile(file, 'utf8')).split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !l.startsWith('-') && !/file:|^\.|@ \//.test(l));
    const lines = await read(pinned);
    const names = new Set(lines.map(requirementName));
    lines.push(...(await read(buildPinned)).filter((l) => !names.has(requirementName(l))));
    await writeFile(join(ctx.depsDir, 'requirements.txt'), lines.join('\n') + '\n');
    ctx.log(`downloading ${lines.length} Python packages for CPython ${PYTHON_VERSION}`);
    if (lines.length) {
      const r = await runTool(
        tools.python,
        ['-m', 'pip', 'download', '--no-deps', '--prefer-binary', '--disable-pip-version-check', '--dest', ctx.depsDir,
          '--python-version', PYTHON_VERSION, '--implementation', 'cp', '--abi', `cp${PYTHON_VERSION.replace('.', '')}`, '--abi', 'abi3', '--abi', 'none',
          ...PLATFORMS.flatMap((p) => ['--platform', p]), '-r', join(ctx.depsDir, 'requirements.txt')],
        { cwd: ctx.srcDir, signal: ctx.signal },
      );
      if (r.code !== 0) {
        const why = tail(r.stderr || r.stdout);
        if (/No matching distribution|Could not find a version/i.test(why)) throw new StageError(`pip cannot download a resolved package:\n${why}`);
        throw new TransientError(`pip download failed:\n${why}`);
      }
    }
    const packages = lines.map((l) => /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;]+)/.exec(l)).filter((m): m is RegExpExecArray => !!m).map((m) => ({ name: m[1], version: m[2] }));
    return { ecosystem: 'pypi', tool: `${tools.version}; pip ${tools.pipVersion}`, lock, asOf: ctx.asOf.toISOString(), packages, notes };
  };
}

interface UvTools {
  uv: string;
  /** The venv's Python, whose pip downloads. */
  python: string;
  version: string;
  pipVersion: string;
}

let installing: Promise<UvTools> | undefined;

/** uv in a venv of its own under the tools directory, installed with the host's Python and pip on first use. */
function ensureUv(toolsDir: string, ctx: FetchContext): Promise<UvTools> {
  installing ??= (async () => {
    const venv = join(toolsDir, 'uv');
    const uv = join(venv, 'bin', 'uv');
    const python = join(venv, 'bin', 'python');
    if (!existsSync(uv)) {
      ctx.log(`installing uv into ${venv} with the host's pip (first time only)`);
      await mkdir(toolsDir, { recursive: true });
      const made = await runTool('python3', ['-m', 'venv', '--clear', venv]);
      if (made.code !== 0) throw new TransientError(`python3 cannot create a venv for uv in ${venv}: ${tail(made.stderr)}`);
      const pip = await runTool(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', 'uv']);
      if (pip.code !== 0) throw new TransientError(`pip cannot install uv into ${venv}: ${tail(pip.stderr)}`);
    }
    const version = (await runTool(uv, ['--version'])).stdout.trim().replace(/ \(.*\)$/, '');
    const pipVersion = /pip (\S+)/.exec((await runTool(python, ['-m', 'pip', '--version'])).stdout)?.[1] ?? 'unknown';
    return { uv, python, version, pipVersion };
  })();
  installing.catch(() => (installing = undefined));
  return installing;
}

/** The host's pip configuration (pip.conf files and PIP_* variables) as uv's variables: uv reads no pip.conf. */
async function uvSettings(python: string): Promise<Record<string, string>> {
  const listed = (await runTool(python, ['-m', 'pip', 'config', 'list'])).stdout;
  const conf = new Map<string, string>();
  for (const line of listed.split('\n')) {
    const m = /^[^.]*\.([\w-]+)='(.*)'$/.exec(line.trim());
    if (m) conf.set(m[1], m[2]);
  }
  const env: Record<string, string> = {};
  if (conf.get('index-url')) env.UV_DEFAULT_INDEX = conf.get('index-url')!;
  if (conf.get('extra-index-url')) env.UV_INDEX = conf.get('extra-index-url')!.split(/\s+/).join(' ');
  if (conf.get('find-links')) env.UV_FIND_LINKS = conf.get('find-links')!.split(/\s+/).join(',');
  if (conf.get('cert') && !process.env.SSL_CERT_FILE) env.SSL_CERT_FILE = conf.get('cert')!;
  if (conf.get('trusted-host')) env.UV_INSECURE_HOST = conf.get('trusted-host')!.split(/\s+/).join(' ');
  return env;
}
