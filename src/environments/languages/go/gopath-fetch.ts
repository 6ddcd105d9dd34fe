import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { StageError } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import type { FetchContext, Resolution } from '../../contract';
import { runTool } from '../../host-tools';
import { toolVersion } from '../host-command';
import { GODEP_WORKSPACE, lockedRevisions } from './gopath-locks';
import { chooseVersion, ModuleProxy, type ChosenModule } from './gopath-versions';
import { compareSemver, requiresOf, type Requirement } from './gopath-requires';

/** At most this many modules in one GOPATH: past it the imports are not an era's dependencies but a runaway. */
export const MAX_GOPATH_MODULES = 200;

function unresolvable(why: string): StageError {
  return new StageError(why, { reason: stageReason('dependencies-unresolvable', why) });
}

/**
 * What the repository's packages and tests import, and what those imports' own packages import,
 * that the GOPATH does not hold: `go list -deps -test` in GOPATH mode from the checkout's place in it
 * (a symlink; PWD keeps the path logical, as the go command reads it), and `go list -deps` of the
 * `added` packages (their tests are not ours). The standard library and the repository's own packages
 * are never missing; a vendor/ directory serves what it holds.
 */
async function missingImports(dir: string, gopath: string, importPath: string, added: string[], signal: AbortSignal) {
  const env = { GO111MODULE: 'off', GOPATH: gopath, GOFLAGS: '', PWD: dir };
  const format = ['-f', '{{if .Error}}{{printf "%s\\t%q" .ImportPath .Error.Err}}{{end}}'];
  const lists = [['list', '-e', '-deps', '-test', ...format, './...']];
  if (added.length) lists.push(['list', '-e', '-deps', ...format, ...added]);
  const missing = new Set<string>();
  for (const args of lists) {
    const r = await runTool('go', args, { cwd: dir, env, signal });
    // -e reports packages' errors in its output: a failing exit is the go command's own.
    if (r.code !== 0)
      throw unresolvable(
        `go ${args.slice(0, 4).join(' ')} failed in GOPATH mode: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      );
    for (const line of r.stdout.split('\n')) {
      const [path, err] = line.split('\t');
      if (!path || !err?.includes('cannot find package')) continue;
      if (path === importPath || path.startsWith(`${importPath}/`)) continue;
      missing.add(path);
    }
  }
  return [...missing].sort();
}

/** The module an import belongs to: the longest prefix of it the proxy knows, preferring one with a version of the era. */
async function moduleOf(
  proxy: ModuleProxy,
  imported: string,
  asOf: Date,
  locks: Awaited<ReturnType<typeof lockedRevisions>>,
) {
  const parts = imported.split('/');
  let outOfEra: ChosenModule | undefined;
  for (let n = parts.length; n >= 2; n--) {
    const chosen = await chooseVersion(proxy, parts.slice(0, n).join('/'), asOf, locks);
    if (chosen && chosen.how !== 'out-of-era') return chosen;
    outOfEra ??= chosen;
  }
  return outOfEra;
}

/**
 * Fills depsDir/src as a GOPATH: every module the repository's imports need (tests included) and,
 * transitively, what those modules' packages import, each at the revision a lock file pins where the
 * proxy serves it, else the newest version published by `asOf`. The modules come through the host's go
 * command and its own proxy configuration, into a download cache of this fetch only, and are copied
 * out to src/<module path>/. `prImports`: packages the stage's PR imports anew, fetched with their own imports.
 * An import no module the proxy serves holds is left out and named (Resolution.unserved): only the
 * packages that import it cannot build, where the era's repositories of then are gone from every host.
 */
export async function fetchGopath(
  ctx: FetchContext,
  importPath: string,
  prImports: string[] = [],
): Promise<Resolution> {
  const gopath = ctx.depsDir;
  const checkout = join(gopath, 'src', importPath);
  await mkdir(dirname(checkout), { recursive: true });
  await symlink(ctx.srcDir, checkout);
  const cache = await mkdtemp(join(tmpdir(), 'chainsmith-gopath-mod-'));
  try {
    const hostFlags = (await runTool('go', ['env', 'GOFLAGS'], { cwd: cache })).stdout.trim();
    const proxy = new ModuleProxy({
      cwd: cache,
      env: { GO111MODULE: 'on', GOMODCACHE: cache, GOFLAGS: [hostFlags, '-modcacherw'].filter(Boolean).join(' ') },
      signal: ctx.signal,
    });
    const locks = await lockedRevisions(ctx.srcDir);
    const chosen = new Map<string, ChosenModule>();
    // What the PR's change imports anew is fetched too (a vendored package is the repository's own): its tests run at the merge.
    const workspace = join(ctx.srcDir, GODEP_WORKSPACE);
    const searched = existsSync(workspace) ? `${gopath}:${workspace}` : gopath;
    const added = prImports.filter((p) => !existsSync(join(ctx.srcDir, 'vendor', p)));
    // An import nothing serves is left out, and the era's other imports still fetched: only its importers cannot build.
    const unserved = new Map<string, string>();
    // The least version of each module that a fetched module's go.mod requires, and which module requires it.
    const required = new Map<string, Requirement & { by: string }>();
    // Copies a module in at the least version its dependents' go.mod files require where the era's is older,
    // then raises what its own go.mod requires: an out-of-era dependency is built against its own requirements.
    const take = async (found: ChosenModule): Promise<void> => {
      const least = required.get(found.module);
      const raised =
        least && compareSemver(least.version, found.version) > 0
          ? await proxy.download(found.module, least.version)
          : undefined;
      const dep: ChosenModule = raised
        ? {
            ...found,
            ...raised,
            note: `${least!.by} requires it (its go.mod), not ${found.version}: ${found.note}`,
            how: 'required',
          }
        : found;
      await rm(join(gopath, 'src', dep.module), { recursive: true, force: true });
      await cp(dep.dir, join(gopath, 'src', dep.module), { recursive: true });
      chosen.set(dep.module, dep);
      // A module nested in this one was copied inside it: it goes back in over the new copy.
      for (const nested of chosen.values())
        if (nested.module.startsWith(`${dep.module}/`))
          await cp(nested.dir, join(gopath, 'src', nested.module), { recursive: true });
      for (const requirement of await requiresOf(dep.dir)) {
        const known = required.get(requirement.module);
        if (known && compareSemver(known.version, requirement.version) >= 0) continue;
        required.set(requirement.module, { ...requirement, by: `${dep.module}@${dep.version}` });
        const older = chosen.get(requirement.module);
        if (older && compareSemver(requirement.version, older.version) > 0) await take(older);
      }
    };
    for (;;) {
      const missing = (await missingImports(checkout, searched, importPath, added, ctx.signal)).filter(
        (m) => !unserved.has(m),
      );
      if (!missing.length) break;
      // Packages of a module this round copies in are there by the next.
      const round = new Set<string>();
      for (const imported of missing) {
        const inside = (module: string) => imported === module || imported.startsWith(`${module}/`);
        if ([...round].some(inside)) continue;
        if (chosen.size >= MAX_GOPATH_MODULES)
          throw unresolvable(`the imports need more than ${MAX_GOPATH_MODULES} modules (next: ${imported})`);
        ctx.log(`go (GOPATH): finding the module of ${imported}`);
        const found = await moduleOf(proxy, imported, ctx.asOf, locks);
        const holder = [...chosen.values()].find((m) => inside(m.module));
        // A module copied in already that still lacks the package: only a nested module of its own could hold it.
        if (holder && (!found || chosen.has(found.module))) {
          unserved.set(imported, `${holder.module}@${holder.version} has no such package`);
          continue;
        }
        if (!found) {
          unserved.set(imported, 'no module the Go module proxy serves holds it');
          continue;
        }
        round.add(found.module);
        await take(found);
      }
    }
    // The sandboxes' user reads what the build copies, whatever the host's umask.
    await runTool('chmod', ['-R', 'u+w,a+rX', join(gopath, 'src')], { cwd: gopath });
    const modules = [...chosen.values()].sort((a, b) => a.module.localeCompare(b.module));
    return {
      ecosystem: 'go-modules',
      tool: await toolVersion('go', ['version']),
      lock: modules.some((m) => m.how === 'locked') ? 'committed' : 'resolved',
      asOf: ctx.asOf.toISOString(),
      packages: modules.map((m) => ({ name: m.module, version: m.version })),
      notes: [
        `GOPATH mode under ${importPath}`,
        ...modules.map((m) => `${m.module} ${m.version}: ${m.note}`),
        ...[...unserved].map(([name, why]) => `${name} left out: ${why}`),
      ],
      ...(unserved.size ? { unserved: [...unserved].map(([name, why]) => ({ name, why })) } : {}),
    };
  } finally {
    await rm(checkout, { force: true });
    await rm(cache, { recursive: true, force: true });
  }
}
