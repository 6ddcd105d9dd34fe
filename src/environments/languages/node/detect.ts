import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StageError, TransientError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import {
  DEPS_MOUNT,
  type FetchContext,
  type ExitCode,
  type LanguageRecipe,
  type RepoFiles,
  type Resolution,
} from '../../contract';
import { runTool, tail } from '../../host-tools';

/** A recipe of this language: its name, its runners' and its toolchains'. */
export type NodeRecipe = LanguageRecipe<'node', 'node' | ExitCode, 'node'>;

/** Where the image keeps node_modules: the working tree is not part of the image, and Node looks in parent directories. */
const MODULES = '/work/node_modules';

/**
 * Node packages: npm on the host fills an npm cache (from package-lock.json as committed, else
 * resolved as of the manifests' date with `--before`), and the build installs from a copy of that
 * cache with `npm ci --offline` on Debian's Node. yarn and pnpm lock files are not read (the package
 * is resolved with npm, noted on the manifest).
 */
export async function detectNode(files: RepoFiles): Promise<NodeRecipe | undefined> {
  if (!files.rootFiles.has('package.json')) return undefined;
  const lock = files.rootFiles.has('package-lock.json')
    ? 'package-lock.json'
    : files.rootFiles.has('npm-shrinkwrap.json')
      ? 'npm-shrinkwrap.json'
      : undefined;
  const other = ['yarn.lock', 'pnpm-lock.yaml'].filter((f) => files.rootFiles.has(f));
  let scripts: Record<string, unknown> = {};
  let engine: unknown;
  try {
    const pkg = JSON.parse((await files.read('package.json')) ?? '{}');
    if (!declaresNode(pkg)) return undefined;
    scripts = pkg?.scripts ?? {};
    engine = pkg?.engines?.node;
  } catch {
    // An unreadable package.json still gets an install; npm will say what is wrong with it.
  }
  return {
    language: 'node',
    origin: 'node-npm',
    toolchain: {
      image: 'node',
      version: NODE_MAJOR,
      // The only Node provided: the nearest there is for a package that asks for another.
      ...(typeof engine === 'string' && !nodeRangeAllows(engine, Number(NODE_MAJOR))
        ? { note: `the package asks for Node ${engine}; the image provides Node ${NODE_MAJOR}, the nearest available` }
        : {}),
    },
    manifests: ['package.json', ...(lock ? [lock] : []), ...other],
    fetch: (ctx) => fetchNpm(ctx, lock, other),
    setup: [
      `cp -r ${DEPS_MOUNT}/npm-cache /tmp/npm-cache`,
      // A lock resolved on the host replaces none; a committed one is used as it is.
      `[ -f ${lock ?? 'package-lock.json'} ] || cp ${DEPS_MOUNT}/package-lock.json .`,
      `npm ci --offline --cache /tmp/npm-cache --userconfig ${DEPS_MOUNT}/npmrc --no-audit --no-fund --ignore-scripts --loglevel=error`,
      // A package without dependencies gets no node_modules from npm ci.
      `mkdir -p node_modules && mv node_modules ${MODULES}`,
      'rm -rf /tmp/npm-cache',
    ],
    env: {},
    path: [`${MODULES}/.bin`],
    runner: typeof scripts.test === 'string' ? 'node' : 'exit-code',
    ...(typeof scripts.test === 'string' ? {} : { test: 'echo "package.json has no test script" >&2; exit 2' }),
  };
}

/**
 * Whether a package.json gives npm anything to install or run: scripts or dependencies. One with
 * neither is another ecosystem's manifest of the same name (clib's, beside a C library's sources:
 * `repo`, `src`): as a Node project it would install nothing and have no test, and the repository's
 * own build would never be looked for.
 */
function declaresNode(pkg: Record<string, unknown> | null): boolean {
  const fields = ['scripts', 'dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];
  return fields.some((f) => pkg?.[f] !== undefined);
}

/** Debian bookworm's Node. */
const NODE_MAJOR = '18';

/** Whether an engines.node range ('>=14', '^16 || ^18', '16.x', '>=20.0.0') admits a major version; an unreadable one does. */
export function nodeRangeAllows(range: string, major: number): boolean {
  return range.split('||').some((alt) => {
    const clauses = alt
      .trim()
      .split(/\s+(?=[<>=^~\d])/)
      .filter(Boolean);
    return clauses.every((c) => {
      const m = /^(>=|<=|>|<|=|\^|~)?\s*v?(\d+|x|\*)/.exec(c.trim());
      if (!m || m[2] === 'x' || m[2] === '*') return true;
      const n = Number(m[2]);
      switch (m[1]) {
        case '>=':
          return major >= n;
        case '>':
          return major > n || (major === n && !/^>\s*v?\d+$/.test(c.trim()));
        case '<=':
          return major <= n;
        case '<':
          return major < n || (major === n && /[.]\d*[1-9]/.test(c));
        default:
          return major === n;
      }
    });
  });
}

async function fetchNpm(ctx: FetchContext, lock: string | undefined, other: string[]): Promise<Resolution> {
  const cache = join(ctx.depsDir, 'npm-cache');
  const notes = other.length && !lock ? [`${other.join(', ')} not read: resolved with npm`] : [];
  // A lock written here names every tarball's URL and hash (whatever the host's npmrc says), so the
  // offline install needs no package metadata, only the cached tarballs.
  const common = [
    '--cache',
    cache,
    '--ignore-scripts',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    '--omit-lockfile-registry-resolved=false',
  ];
  const args = lock ? ['ci', ...common] : ['install', ...common, '--before', ctx.asOf.toISOString()];
  ctx.log(
    `npm ${args[0]} on the host (${lock ? `${lock} as committed` : `resolved as of ${ctx.asOf.toISOString().slice(0, 10)}`})`,
  );
  let r = await runTool('npm', args, { cwd: ctx.srcDir, signal: ctx.signal });
  let asOf: string | undefined = lock ? undefined : ctx.asOf.toISOString();
  if (r.code !== 0 && !lock && /ENOVERSIONS|ETARGET/.test(r.stderr)) {
    // A registry (a mirror, say) whose publish times do not reach back that far has nothing "before": resolve as of now.
    const why =
      r.stderr.split('\n').find((l) => /ENOVERSIONS|ETARGET|No versions|No matching/.test(l) && !/code E/.test(l)) ??
      'ENOVERSIONS';
    notes.push(
      `the registry has no versions published before ${asOf!.slice(0, 10)} (${why.replace(/^npm (error|ERR!) /, '')}); resolved as of the fetch`,
    );
    asOf = undefined;
    r = await runTool('npm', args.slice(0, -2), { cwd: ctx.srcDir, signal: ctx.signal });
  }
  if (r.code !== 0) {
    const why = tail(r.stderr || r.stdout);
    if (/E404|ETARGET|ENOVERSIONS|ERESOLVE|EUSAGE|not in this registry|No matching version/i.test(why)) {
      const reason = stageReason('dependencies-unresolvable', 'npm cannot resolve the packages', {
        command: `npm ${args.join(' ')}`,
        exitCode: r.code,
        output: r.stderr || r.stdout,
      });
      throw new StageError(`npm cannot resolve the packages:\n${why}`, { reason });
    }
    throw new TransientError(`npm ${args[0]} failed on the host:\n${why}`);
  }
  await copyFile(join(ctx.srcDir, lock ?? 'package-lock.json'), join(ctx.depsDir, 'package-lock.json'));
  // The cache is keyed by URL: the build's npm must ask for the host's registry (its address only, no credentials).
  const registry = (await runTool('npm', ['config', 'get', 'registry'], { cwd: ctx.srcDir })).stdout.trim();
  await writeFile(join(ctx.depsDir, 'npmrc'), registry ? `registry=${registry}\n` : '');
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
  return {
    ecosystem: 'npm',
    tool: `npm ${version}`,
    lock: lock ? 'committed' : 'resolved',
    ...(asOf ? { asOf } : {}),
    packages,
    notes,
  };
}
