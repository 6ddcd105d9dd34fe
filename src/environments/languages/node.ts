import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StageError, TransientError } from '../../errors';
import { DEPS_MOUNT, type FetchContext, type LanguageRecipe, type RepoFiles, type Resolution } from '../contract';
import { runTool, tail } from '../host-tools';

/** Where the image keeps node_modules: the working tree is not part of the image, and Node looks in parent directories. */
const MODULES = '/work/node_modules';

/**
 * Node packages: npm on the host fills an npm cache (from package-lock.json as committed, else
 * resolved as of the manifests' date with `--before`), and the build installs from a copy of that
 * cache with `npm ci --offline` on Debian's Node. yarn and pnpm lock files are not read (the package
 * is resolved with npm, noted on the manifest).
 */
export async function detectNode(files: RepoFiles): Promise<LanguageRecipe | undefined> {
  if (!files.rootFiles.has('package.json')) return undefined;
  const lock = files.rootFiles.has('package-lock.json') ? 'package-lock.json' : files.rootFiles.has('npm-shrinkwrap.json') ? 'npm-shrinkwrap.json' : undefined;
  const other = ['yarn.lock', 'pnpm-lock.yaml'].filter((f) => files.rootFiles.has(f));
  let scripts: Record<string, unknown> = {};
  try {
    scripts = JSON.parse((await files.read('package.json')) ?? '{}')?.scripts ?? {};
  } catch {
    // An unreadable package.json still gets an install; npm will say what is wrong with it.
  }
  return {
    language: 'node',
    origin: 'node-npm',
    toolchain: { image: 'node' },
    manifests: ['package.json', ...(lock ? [lock] : []), ...other],
    fetch: (ctx) => fetchNpm(ctx, lock, other),
    setup: [
      `cp -r ${DEPS_MOUNT}/npm-cache /tmp/npm-cache`,
      // A lock resolved on the host replaces none; a committed one is used as it is.
      `[ -f ${lock ?? 'package-lock.json'} ] || cp ${DEPS_MOUNT}/package-lock.json .`,
      'npm ci --offline --cache /tmp/npm-cache --no-audit --no-fund --ignore-scripts --loglevel=error',
      `mv node_modules ${MODULES}`,
      'rm -rf /tmp/npm-cache',
    ],
    env: {},
    path: [`${MODULES}/.bin`],
    runner: typeof scripts.test === 'string' ? 'node' : 'exit-code',
    ...(typeof scripts.test === 'string' ? {} : { test: 'echo "package.json has no test script" >&2; exit 2' }),
  };
}

async function fetchNpm(ctx: FetchContext, lock: string | undefined, other: string[]): Promise<Resolution> {
  const cache = join(ctx.depsDir, 'npm-cache');
  const notes = other.length && !lock ? [`${other.join(', ')} not read: resolved with npm`] : [];
  const common = ['--cache', cache, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'];
  const args = lock ? ['ci', ...common] : ['install', ...common, '--before', ctx.asOf.toISOString()];
  ctx.log(`npm ${args[0]} on the host (${lock ? `${lock} as committed` : `resolved as of ${ctx.asOf.toISOString().slice(0, 10)}`})`);
  const r = await runTool('npm', args, { cwd: ctx.srcDir, signal: ctx.signal });
  if (r.code !== 0) {
    const why = tail(r.stderr || r.stdout);
    if (/E404|ETARGET|ERESOLVE|EUSAGE|not in this registry|No matching version/i.test(why)) throw new StageError(`npm cannot resolve the packages:\n${why}`);
    throw new TransientError(`npm ${args[0]} failed on the host:\n${why}`);
  }
  await copyFile(join(ctx.srcDir, lock ?? 'package-lock.json'), join(ctx.depsDir, 'package-lock.json'));
  const version = (await runTool('npm', ['--version'])).stdout.trim();
  const listed = await runTool('npm', ['ls', '--all', '--json', '--package-lock-only'], { cwd: ctx.srcDir });
  const packages: Resolution['packages'] = [];
  const walk = (deps: Record<string, { version?: string; dependencies?: object }> | undefined) => {
    for (const [name, d] of Object.entries(deps ?? {})) {
      if (d.version) packages.push({ name, version: d.version });
      walk(d.dependencies as never);
    }
  };
  try {
    walk(JSON.parse(listed.stdout).dependencies);
  } catch {
    notes.push('npm ls gave no package list');
  }
  return { ecosystem: 'npm', tool: `npm ${version}`, lock: lock ? 'committed' : 'resolved', ...(lock ? {} : { asOf: ctx.asOf.toISOString() }), packages, notes };
}
