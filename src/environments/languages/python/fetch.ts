import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { StageError, ToolchainTooOld, UnexplainedFailure } from '../../../errors';
import { stageReason } from '../../../stage-reason';
import type { FetchContext, Resolution } from '../../contract';
import { runTool, tail, toolsDirOf, type ToolRun } from '../../host-tools';
import { compareVersions } from '../host-command';
import { resolverFailure } from './resolver-failure';
import { checkoutFiles } from '../../repo-files';
import { resolverInputs, type ResolverInputs } from './resolver-inputs';
import { requirementName } from './pyproject';
import { candidatePage, downloadListed } from './candidate-page';
import { DownloadStore, fileRelease, linkOrCopy } from './download-store';
import { buildResolutionKey, keptResolution } from './build-resolutions';
import { GLIBC_MINOR, wheelTags } from './wheel-tags';
import { datePinned } from './date-pinned';
import { installedVersion, makeToolsVenv, TOOLS_PIP_ENV, UV_PIN } from './tools-venv';
import { sharedUntilFailure } from '../../../shared-promise';
import { spellAsSdists } from './sdist-names';
import { finalRelease } from './versions';
import { sdistBuildRequires, sdistsWithoutWheel, sdistTopFiles } from './sdist-backends';
import { installRequires } from './setup-requires';
import { convertsPython2, convertsWith2to3 } from './python2-build';

/**
 * Bumped when resolution changes (the test tooling lift below): older cached fetches, and the images and
 * gold validations keyed on them, are not reused. Per Python: 3.12's tooling floor changed only its
 * resolutions (and 3.13's), so older Pythons keep theirs.
 */
export function pythonFetchRevision(python: string): number {
  // +1 on both whenever what a fetch resolves or downloads changes, so that no stored fetch of before is reused: the
  // history of this line (git log -L) says when and why; the latest, when a project whose own metadata does not build
  // on the host began to resolve from its literal install_requires, and Python 3.6's wording of setuptools' missing
  // Feature began to bring setuptools down to 45: stored failures of such stages are fetched anew.
  return compareVersions(python, '3.12') >= 0 ? 26 : 25;
}

/**
 * The name under which a fetch for Python 3.8 or later leaves the host's uv (a hard link where it can)
 * in the dependency directory: the environment's build fills its venv with it (detect.ts, uvVenv).
 */
export const UV_IN_DEPS = 'uv';

/** uv installs into Pythons from 3.8 on (UV_IN_DEPS); the venvs of older ones are made and filled by their own pip. */
export const uvInstalls = (minor: string) => compareVersions(minor, '3.8') >= 0;

/**
 * Test tooling that runs on a Python only from these versions on, by the minor from which a floor
 * applies (a minor takes the newest entry at or below it): pytest before 2.7.3 rewrites assertions
 * with Python 3.4's ast.Call, which 3.5 changed, so every test module with an assert errors at
 * collection (`TypeError: Call constructor takes either 0 or 3 positional arguments`: a stage of 2013
 * resolves pytest 2.3 on the oldest Python here, 3.6), and 2.7.3 needs py 1.4.29; older pytest imports the py library, whose
 * vendored apipkg fails from Python 3.11 on at import (`AttributeError: __spec__`), so a run reports no
 * test at all; pytest's assertion rewriting used ast.Str until 7.4.3, a DeprecationWarning from 3.12 on,
 * which fails every test module of a project that turns warnings into errors (jinja #1858 on 3.12).
 * Where the resolution as of the manifests' date picks an older one, the tooling (not the project's own
 * dependencies) is resolved again as of `asOf`, when these were out.
 */
const TOOLING_FLOORS: Array<{ from: string; floors: Record<string, string>; asOf: string }> = [
  { from: '3.5', floors: { pytest: '2.7.3', py: '1.4.29' }, asOf: '2015-09-16T00:00:00Z' },
  { from: '3.11', floors: { pytest: '7.0.1', py: '1.11.0' }, asOf: '2022-02-18T00:00:00Z' },
  { from: '3.12', floors: { pytest: '7.4.3', py: '1.11.0' }, asOf: '2023-10-25T00:00:00Z' },
];
const toolingFloors = (python: string) =>
  [...TOOLING_FLOORS].reverse().find((t) => compareVersions(python, t.from) >= 0);
/** What pytest needs to run, lifted with it (their versions as of the manifests' date may predate what it requires, or ship only an sdist). */
const TOOLING = ['pytest', 'py', 'pluggy', 'iniconfig', 'tomli', 'exceptiongroup'];

/** The tooling pins below their floor on `python` in a pinned requirements file's lines ('pytest==5.4.3' → ['pytest', '5.4.3']). */
export function toolingBelowFloor(lines: string[], python: string): [string, string][] {
  const floors = toolingFloors(python)?.floors ?? {};
  return lines
    .map((l) => /^([A-Za-z0-9._-]+)==([^\s;]+)/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m): [string, string] => [requirementName(m[1]), m[2]])
    .filter(([name, version]) => floors[name] !== undefined && compareVersions(version, floors[name]) < 0);
}

/** What to resolve besides what the checkout declares (resolver-inputs.ts: its project and requirement files, extras and groups). */
export interface PythonInputs {
  /** A configured recipe's files, resolved as named instead of what the checkout declares. */
  configured?: ResolverInputs;
  /** The build backend's requirements, installed into the venv so the project installs without build isolation. */
  buildRequires: string[];
  /** Test tooling the image lacks (pytest, on a host Python), resolved with the build requirements where the project pins none. */
  testTooling: string[];
  /** The minor ('3.13') of the Python the environment runs: what is resolved and downloaded for. */
  python: string;
  /** uv.lock is taken as committed. */
  uvLock: boolean;
  /** Packages the PR's tests need that the base does not declare (python.ts addedTestRequirements), resolved with the rest. */
  prAdds: string[];
  /** Test requirements in Poetry's, PDM's, Hatch's or tox's own tables (tool-deps.ts), resolved with the rest. */
  toolDeps: string[];
  /** A newer minor the project tests on, the recipe's fallback: a resolution that needs a newer Python than `python` is ToolchainTooOld. */
  newerPython?: string;
  /** The pip that installs the downloads into the venv, where uv does not (Pythons before 3.8): the wheels it accepts. */
  installerPip?: string;
  /**
   * The host's interpreter of `python` (its prefix's python3): what builds the project's and its sdists'
   * metadata and their build requirements, as the environment's Python will. The tools' own Python (the
   * host's newest) cannot build some (cffi of 2020 as a build requirement compiles for it and fails), nor
   * run every setup.py of an older era (one that imports its package, whose code 3.11 no longer parses).
   */
  interpreter?: string;
}

/**
 * The extras uv's error names as not declared by the project (`--extra dev` where dev is a Poetry group):
 * "Requested extra not found: dev", or for several "Requested extras not found: dev, lint".
 */
const unknownExtras = (stderr: string): string[] =>
  /Requested extras? not found: ([^\n]+)/
    .exec(stderr)?.[1]
    .split(',')
    .map((n) => n.trim())
    .filter((n) => /^[A-Za-z0-9][\w.-]*$/.test(n)) ?? [];

/**
 * Resolves a Python project's dependencies on the host with uv, as of `asOf` (`--exclude-newer`) for
 * the environment's CPython on x86_64 glibc 2.36, and downloads them (wheels, an sdist where a package has none)
 * with pip into the dependency directory, with requirements.txt listing what the image installs.
 * Both read the host's pip configuration (index, extra index, find-links, certificate).
 */
export function pythonFetch(inputs: PythonInputs) {
  const pyVersion = inputs.python;
  return async (ctx: FetchContext): Promise<Resolution> => {
    const tools = await ensureUv(toolsDirOf(ctx.toolsDir), ctx);
    const env = await uvSettings(tools.python);
    const quarter = quarterStart(ctx.asOf);
    try {
      if (quarter.getTime() < ctx.asOf.getTime()) {
        try {
          const r = await fetchAsOf({ ...ctx, asOf: quarter }, tools, env);
          r.notes.unshift(
            `resolved as of ${day(quarter)}, the start of the quarter in which the dependency declarations last changed (${day(ctx.asOf)}): declarations changed within a quarter that what was out at its start satisfies resolve alike`,
          );
          return r;
        } catch (err) {
          if (!(err instanceof StageError || err instanceof UnexplainedFailure) || err instanceof ToolchainTooOld)
            throw err;
          ctx.log(`not resolvable as of ${day(quarter)}; as of ${day(ctx.asOf)}: ${err.message.split('\n')[0]}`);
          await emptied(ctx.depsDir);
        }
      }
      const r = await fetchAsOf(ctx, tools, env);
      if (quarter.getTime() < ctx.asOf.getTime())
        r.notes.unshift(
          `the declarations do not resolve as of ${day(quarter)}, the start of their quarter: resolved as of their last change (${day(ctx.asOf)})`,
        );
      return r;
    } catch (err) {
      // An older minor than the project tests on, chosen so that stages share it: the newest is the recipe's fallback.
      if (
        inputs.newerPython &&
        err instanceof StageError &&
        !(err instanceof ToolchainTooOld) &&
        TOO_OLD_PYTHON.test(err.message)
      )
        throw new ToolchainTooOld(`what the stage resolves needs a newer Python than ${pyVersion}`, {
          cause: err,
          reason: stageReason(
            'unsupported',
            `what the stage resolves needs a newer Python than ${pyVersion} (tried ${inputs.newerPython} next)`,
          ),
        });
      throw err;
    }
  };

  /** The resolution and download as of `ctx.asOf`, into `ctx.depsDir`. */
  async function fetchAsOf(ctx: FetchContext, tools: UvTools, env: Record<string, string>): Promise<Resolution> {
    // uv takes an existing output file's pins as preferences: an earlier attempt's must not steer this one.
    for (const f of (await readdir(ctx.srcDir)).filter((f) => f.startsWith('.chainsmith-')))
      await rm(join(ctx.srcDir, f), { force: true });
    const notes: string[] = [];
    const { sources, testSources, extras, testExtras, groups } =
      inputs.configured ?? (await resolverInputs(await checkoutFiles(ctx.srcDir)));
    const pinned = join(ctx.srcDir, '.chainsmith-pinned.txt');
    let lock: Resolution['lock'] = 'resolved';
    let resolved = false;
    if (inputs.uvLock) {
      const r = await runTool(
        tools.uv,
        [
          'export',
          '--frozen',
          '--no-hashes',
          '--no-emit-project',
          '--no-header',
          '--no-default-groups',
          ...groups.flatMap((g) => ['--group', g]),
          '--all-extras',
          '--no-python-downloads',
          '-o',
          pinned,
        ],
        { cwd: ctx.srcDir, env, signal: ctx.signal },
      );
      if (r.code === 0) {
        lock = 'committed';
        resolved = true;
      } else notes.push(`uv.lock could not be exported (${tail(r.stderr, 1)}); resolved from the project instead`);
    }
    const compile = (sources: string[], out: string) => [
      'pip',
      'compile',
      ...sources,
      // The interpreter that builds a setup.py's metadata, named (the host's of the target's minor where
      // the recipe knows it, else the tools'): uv would look for one of the target's minor on PATH (pyenv's
      // shims of it fail, 0.5 CPU-s a compile), try to download one from outside the package index (three
      // times, blocked here), and then fall back to the host's default python, the one this venv was made from.
      '--python',
      inputs.interpreter ?? tools.python,
      '--no-python-downloads',
      '--python-version',
      pyVersion,
      '--python-platform',
      `x86_64-manylinux_2_${GLIBC_MINOR}`,
      '--exclude-newer',
      ctx.asOf.toISOString(),
      '--no-header',
      '--no-annotate',
      '--quiet',
      '-o',
      out,
    ];
    // The project's requirements and its build requirements are resolved apart, each lifting only what it needs.
    const uv = (args: string[]) => runTool(tools.uv, args, { cwd: ctx.srcDir, env, signal: ctx.signal });
    // One floor for both resolutions (the project's and its build's), said once.
    const setuptoolsFloor = backendFloor(pyVersion, ctx.asOf, notes);
    const main = datePinned(uv, ctx.asOf, notes, setuptoolsFloor);
    /** Resolves again with the test tooling lifted where the date-pinned one does not run on the image's Python. */
    const liftTooling = async (args: string[]) => {
      const floor = toolingFloors(pyVersion);
      const before = toolingBelowFloor(await readPinned(pinned), pyVersion);
      if (!floor || !before.length) return;
      const asOf = ctx.asOf.toISOString() > floor.asOf ? ctx.asOf.toISOString() : floor.asOf;
      const plugins = (await readPinned(pinned)).map(requirementName).filter((n) => n.startsWith('pytest-'));
      const overrides = join(ctx.srcDir, '.chainsmith-tooling-overrides.txt');
      await writeFile(
        overrides,
        Object.entries(floor.floors)
          .map(([n, v]) => `${n}>=${v}`)
          .join('\n') + '\n',
      );
      // Into a file of its own: uv takes an existing output file's pins as preferences, which would keep the old tooling.
      const out = join(ctx.srcDir, '.chainsmith-lifted.txt');
      const oIndex = args.indexOf('-o');
      const lifted = [
        ...args.slice(0, oIndex),
        '-o',
        out,
        ...args.slice(oIndex + 2),
        '--overrides',
        overrides,
        ...[...TOOLING, ...plugins].flatMap((n) => ['--exclude-newer-package', `${n}=${asOf}`]),
      ];
      const r = await runTool(tools.uv, lifted, { cwd: ctx.srcDir, env, signal: ctx.signal });
      if (r.code === 0) await writeFile(pinned, await readFile(out, 'utf8'));
      if (r.code !== 0) {
        notes.push(
          `the test tooling (${before.map(([n, v]) => `${n} ${v}`).join(', ')}) does not run on Python ${pyVersion} and could not be lifted (${tail(r.stderr, 1)})`,
        );
        return;
      }
      const now = new Map(
        (await readPinned(pinned))
          .map((l) => /^([A-Za-z0-9._-]+)==([^\s;]+)/.exec(l))
          .filter((m): m is RegExpExecArray => !!m)
          .map((m) => [requirementName(m[1]), m[2]]),
      );
      notes.push(
        `test tooling lifted to run on Python ${pyVersion}: ${before.map(([n, v]) => `${n} ${v} → ${now.get(n) ?? 'not needed'}`).join(', ')} ` +
          `(${[...TOOLING, ...plugins].join(', ')} resolved as of ${asOf.slice(0, 10)}); the project's own dependencies stay as of ${day(ctx.asOf)}`,
      );
    };
    if (resolved && inputs.prAdds.length)
      notes.push(
        `the PR's added test requirements (${inputs.prAdds.join(', ')}) are not installed: the base's uv.lock is taken as committed`,
      );
    if (!resolved) {
      // With the tools' test requirements and what the PR adds for its tests first; then with the PR's
      // alone (one bad tool table does not cost them); then without either, where they do not resolve with the project's.
      const { toolDeps, prAdds } = inputs;
      const sourceSets: { sources: string[]; tool: boolean; pr: boolean; narrowed?: boolean }[] = [];
      for (const [tool, pr] of [
        [true, true],
        [false, true],
      ] as const) {
        const added = [...(tool ? toolDeps : []), ...(pr ? prAdds : [])];
        if (!added.length || (!tool && !toolDeps.length)) continue;
        const file = join(ctx.srcDir, `.chainsmith-added-${sourceSets.length}.in`);
        await writeFile(file, added.join('\n') + '\n');
        sourceSets.push({
          sources: [...sources, file],
          tool: tool && toolDeps.length > 0,
          pr: pr && prAdds.length > 0,
        });
      }
      // Nothing to resolve where the checkout declares no requirement the resolver reads (its build's are resolved below).
      if (sources.length) sourceSets.push({ sources, tool: false, pr: false });
      else if (!sourceSets.length) {
        await writeFile(pinned, '');
        resolved = true;
        notes.push('the checkout declares no requirement the resolver reads: only the build requirements are resolved');
      }
      // Last, where the whole set does not resolve: the project with its test requirement files alone.
      if (testSources) sourceSets.push({ sources: testSources, tool: false, pr: false, narrowed: true });
      const attempts: string[][] = [extras === 'all' ? ['--all-extras'] : extras.flatMap((e) => ['--extra', e])];
      if (extras === 'all' || extras.length > testExtras.length)
        attempts.push(testExtras.flatMap((e) => ['--extra', e]));
      let failure: { args: string[]; run: ToolRun } | undefined;
      // Extras a test run names (tox, nox) that the project does not declare: a Poetry group, an extra since removed.
      const undeclared = new Set<string>();
      // An attempt's arguments (`--extra NAME` pairs, or `--all-extras`) without the undeclared ones' pairs.
      const without = (args: string[]) => args.filter((a, k) => !undeclared.has(a === '--extra' ? args[k + 1] : a));
      for (const { sources: these, tool, pr, narrowed } of sourceSets) {
        const base = [...compile(these, pinned), ...groups.flatMap((g) => ['--group', g])];
        for (const [i, asked] of attempts.entries()) {
          let extras = without(asked);
          let r = await main.compile([...base, ...extras]);
          // Asked again without an extra uv says the project does not have; each name once, so this ends.
          for (let m = unknownExtras(r.stderr); r.code !== 0 && m.some((n) => !undeclared.has(n)); ) {
            for (const n of m) undeclared.add(n);
            extras = without(asked);
            r = await main.compile([...base, ...extras]);
            m = unknownExtras(r.stderr);
          }
          if (r.code === 0) {
            if (undeclared.size)
              notes.push(
                `the project declares no extra ${[...undeclared].join(', ')}, which its test runs name: resolved without it`,
              );
            if (i > 0)
              notes.push(
                `not every extra resolves; resolved with the test extras only (${testExtras.join(', ') || 'none'})`,
              );
            if (toolDeps.length)
              notes.push(
                tool
                  ? `test requirements from the project's tool tables (Poetry, PDM, Hatch, tox): ${toolDeps.join(', ')}`
                  : `the test requirements of the project's tool tables (${toolDeps.join(', ')}) do not resolve with its own and are not installed`,
              );
            if (prAdds.length)
              notes.push(
                pr
                  ? `test requirements the PR adds, which the base does not declare: ${prAdds.join(', ')}`
                  : `the PR's added test requirements (${prAdds.join(', ')}) do not resolve with the base's and are not installed`,
              );
            if (narrowed)
              notes.push(
                `the requirement files ${sources.filter((f) => !these.includes(f)).join(', ')} do not resolve with the project's test requirements and are not installed`,
              );
            resolved = true;
            await liftTooling([...base, ...extras, ...main.pins()]);
            break;
          }
          failure = { args: [...base, ...extras, ...main.pins()], run: r };
        }
        if (resolved) break;
      }
      // A project whose own metadata the resolver refuses (a version PEP 440 does not read, such as "trunk", which the
      // setuptools of its era took) or cannot build on the host (OWN_METADATA_FAILED): what its setup.py or setup.cfg
      // lists literally, with its requirement files. Not where it names install_requires but lists none literally (it
      // computes them): that would resolve without them. Where this fails too, the project's own failure is the reason.
      const unread = !resolved && failure && ownMetadataUnread(failure.run.stderr);
      const read = (f: string) => readFile(join(ctx.srcDir, f), 'utf8').catch(() => '');
      const setupFiles = unread ? [await read('setup.py'), await read('setup.cfg')] : [];
      const listed = installRequires(setupFiles[0] ?? '', setupFiles[1] ?? '');
      const computed = !listed.length && setupFiles.some((t) => /\binstall_requires\b/.test(t));
      if (!resolved && failure && unread && !computed && /^setup\.(py|cfg)$/.test(sources[0] ?? '')) {
        const declared = join(ctx.srcDir, '.chainsmith-declared.in');
        await writeFile(declared, listed.map((l) => l + '\n').join(''));
        const args = compile([declared, ...sources.slice(1)], pinned);
        const r = await main.compile(args);
        if (r.code === 0) {
          resolved = true;
          notes.push(
            `${unread} (${unread === REFUSED ? tail(failure.run.stderr, 1) : backendError(failure.run.stderr)}): resolved from what ${sources[0]} lists literally (${listed.join(', ') || 'nothing'})${sources.length > 1 ? ` and ${sources.slice(1).join(', ')}` : ''}`,
          );
          await liftTooling([...args, ...main.pins()]);
        }
      }
      if (!resolved && failure)
        throw resolverFailure(
          'uv cannot resolve the Python requirements',
          shown(tools.uv, failure.args),
          failure.run,
          ` as of ${day(ctx.asOf)}`,
        );
    }
    // The build backend, resolved apart: a lock file need not hold it, and the project installs without build isolation.
    const build = join(ctx.srcDir, '.chainsmith-build-requirements.in');
    const buildPinned = join(ctx.srcDir, '.chainsmith-build-pinned.txt');
    // The test tooling the image's Python lacks comes with the build's, at its floor on this Python where the date would give an older one.
    const floor = toolingFloors(pyVersion);
    const tooling = inputs.testTooling.map((t) => (floor?.floors[t] ? `${t}>=${floor.floors[t]}` : t));
    const toolingAsOf =
      floor && tooling.length && floor.asOf > ctx.asOf.toISOString()
        ? TOOLING.flatMap((n) => ['--exclude-newer-package', `${n}=${floor.asOf}`])
        : [];
    const buildLines = [...inputs.buildRequires, 'setuptools', 'wheel', ...tooling];
    await writeFile(build, buildLines.join('\n') + '\n');
    // Where the project pins no pytest, the build's runs its tests, with what it needs from the same resolution:
    // the project's pins of those (a tox of 2013 pins py 1.4.12, which pytest 2.7.3 refuses) are only preferred.
    const projectPins = await readPinned(pinned);
    const pytestFromBuild =
      inputs.testTooling.includes('pytest') && !projectPins.some((l) => requirementName(l) === 'pytest');
    const toolingPreferred = pytestFromBuild ? projectPins.filter((l) => TOOLING.includes(requirementName(l))) : [];
    // uv takes an existing output file's pins as preferences.
    await writeFile(buildPinned, toolingPreferred.map((l) => l + '\n').join(''));
    // With the era's setuptools where it serves: an sdist among them (2018's pytest needs pluggy 0.6, which has no wheel) needs a later one to be read.
    const buildRun = datePinned(uv, ctx.asOf, notes, setuptoolsFloor);
    const b = await keptResolution(
      join(tools.dir, 'build-resolutions'),
      // With the fetch's revision: a change to how build requirements resolve (backendFloor) must not take a resolution kept before it.
      buildResolutionKey(buildLines, [
        pythonFetchRevision(pyVersion),
        pyVersion,
        GLIBC_MINOR,
        ctx.asOf.toISOString(),
        tools.version,
        env,
        ...toolingAsOf,
        ...toolingPreferred,
      ]),
      buildPinned,
      () => buildRun.compile([...compile([build], buildPinned), ...toolingAsOf]),
    );
    if (!('kept' in b) && b.code !== 0)
      throw resolverFailure(
        `uv cannot resolve the build requirements (${buildLines.join(', ')})`,
        shown(tools.uv, [...compile([build], buildPinned), ...toolingAsOf, ...buildRun.pins()]),
        b,
      );
    // The project itself (editable, a local path) is installed from the working tree, not from here.
    // setuptools and wheel that the requirements resolved past the date only to read setup.py metadata on the
    // host are not what the image installs: the era's are, as the build's resolution has them (a 2016 sdist
    // that setuptools 59 cannot build, `Feature` gone since 46, needs them where the project needs setuptools).
    const buildPins = await readPinned(buildPinned);
    const fromBuild = new Set<string>(
      buildPins
        .map(requirementName)
        .filter(
          (n) =>
            (main.backendLifted() && (n === 'setuptools' || n === 'wheel')) || (pytestFromBuild && TOOLING.includes(n)),
        ),
    );
    const gaveWay = projectPins.filter(
      (l) => TOOLING.includes(requirementName(l)) && fromBuild.has(requirementName(l)) && !buildPins.includes(l),
    );
    const taken = buildPins.filter((l) => gaveWay.some((g) => requirementName(g) === requirementName(l)));
    if (gaveWay.length)
      notes.push(
        `the project's ${gaveWay.join(', ')} gave way to ${taken.join(', ')}: the pytest that runs its tests, which it pins none of, needs them`,
      );
    const lines = projectPins.filter((l) => !fromBuild.has(requirementName(l)));
    const names = new Set(lines.map(requirementName));
    lines.push(...buildPins.filter((l) => !names.has(requirementName(l))));
    await writeFile(join(ctx.depsDir, 'requirements.txt'), lines.join('\n') + '\n');
    // Pins an earlier fetch downloaded for the same Python, platforms and index are taken from the store.
    const tags = wheelTags(pyVersion, inputs.installerPip);
    const store = new DownloadStore(join(tools.dir, 'pypi-files'), [pyVersion, tags, env, tools.pipVersion]);
    const downloads: Downloads = { tools, env, ctx, pyVersion, tags, store };
    await downloadPins(lines, downloads);
    await wheelsFromSdists(sdistsWithoutWheel(await readdir(ctx.depsDir)), tools, env, ctx, notes);
    await backendsOfSdists(downloads, (file, out) => uv(compile([file], out)), notes);
    await spellAsSdists(ctx.depsDir);
    if (uvInstalls(pyVersion)) {
      // Replaced, not kept: the uv of this run (38 MB, so linked where it can be).
      await rm(join(ctx.depsDir, UV_IN_DEPS), { force: true });
      await linkOrCopy(tools.uv, join(ctx.depsDir, UV_IN_DEPS));
    }
    const packages = lines
      .map((l) => /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;]+)/.exec(l))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => ({ name: m[1], version: m[2] }));
    return {
      ecosystem: 'pypi',
      tool: `${tools.version}; pip ${tools.pipVersion}`,
      lock,
      asOf: ctx.asOf.toISOString(),
      packages,
      notes,
      // Which of them are wheels and which sdists the image builds: the same versions, packaged otherwise, are another image.
      artifacts: (await readdir(ctx.depsDir)).filter((f) => f !== 'requirements.txt' && f !== UV_IN_DEPS).sort(),
    };
  }
}

/** Where and for what a fetch downloads: its tools, the pip settings, the stage, the target Python and its wheel tags, the download store. */
interface Downloads {
  tools: UvTools;
  env: Record<string, string>;
  ctx: FetchContext;
  pyVersion: string;
  tags: ReturnType<typeof wheelTags>;
  store: DownloadStore;
}

/** Downloads exact pins (`name==version` lines) into the dependency directory, taking what the download store holds. */
async function downloadPins(lines: string[], { tools, env, ctx, pyVersion, tags, store }: Downloads): Promise<void> {
  const missing = await store.take(lines, ctx.depsDir);
  ctx.log(
    `downloading ${missing.length} Python packages for CPython ${pyVersion}${missing.length < lines.length ? ` (${lines.length - missing.length} more from the download store)` : ''}`,
  );
  if (missing.length) {
    const fresh = await mkdtemp(join(tmpdir(), 'chainsmith-pip-download-'));
    const dest = join(fresh, 'files');
    await mkdir(dest);
    const download = (file: string, from: string[]) => pipDownloadArgs(dest, pyVersion, tags, file, from);
    const pipDownload = async (pins: string[], file: string, from: string[] = []) => {
      await writeFile(file, pins.join('\n') + '\n');
      return runTool(tools.python, download(file, from), {
        cwd: ctx.srcDir,
        env: TOOLS_PIP_ENV,
        signal: ctx.signal,
      });
    };
    try {
      // The releases uv finds a compatible wheel of are chosen among their own files (candidate-page.ts); the rest, or all where that fails, from the index.
      // A release with one file pip could take (an sdist only, one pure wheel) is that file, downloaded without pip.
      const page = await candidatePage(tools.uv, tools.python, pyVersion, env, missing, fresh, ctx.signal);
      const releaseOf = (l: string) => DownloadStore.release(l)?.name ?? '';
      const onPage = page?.page ? missing.filter((l) => page.covered.has(releaseOf(l))) : [];
      const only = missing.filter((l) => page?.only.has(releaseOf(l)));
      const got =
        page && only.length
          ? await downloadListed(
              tools.python,
              only.map((l) => page.only.get(releaseOf(l))!),
              dest,
              env,
              ctx.signal,
            )
          : { done: new Set<string>() };
      const direct = only.filter((l) => got.done.has(page!.only.get(releaseOf(l))!));
      let fromIndex = missing.filter((l) => !onPage.includes(l) && !direct.includes(l));
      // A trace where direct downloads fail every time (a proxy urllib cannot use): each then costs a pip run.
      if (direct.length < only.length)
        ctx.log(
          `${only.length - direct.length} of ${only.length} listed files not downloaded directly (one: ${got.firstFailure ?? 'no reason given'}): pip downloads them from the index`,
        );
      if (page && (onPage.length || direct.length))
        ctx.log(
          `${direct.length} of them downloaded as the file uv lists (an sdist with no wheel listed, or the one wheel listed, pure Python); ${onPage.length} chosen among their releases' own files, ${fromIndex.length} from the index`,
        );
      if (page?.page && onPage.length) {
        const r = await pipDownload(onPage, join(fresh, 'on-page.txt'), ['--no-index', '--find-links', page.page]);
        if (r.code !== 0) {
          // What it wrote is not kept: the index's run starts from an empty directory, as before.
          await emptied(dest);
          fromIndex = missing;
        }
      }
      if (fromIndex.length) {
        const missingFile = join(fresh, 'requirements.txt');
        const r = await pipDownload(fromIndex, missingFile);
        if (r.code !== 0)
          throw resolverFailure(
            'pip cannot download a resolved package',
            shown('pip', download(missingFile, []).slice(2)),
            r,
          );
      }
      const files = await readdir(dest);
      await store.keep(missing, files, dest);
      for (const f of files) await copyFile(join(dest, f), join(ctx.depsDir, f));
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  }
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The first day of `date`'s calendar quarter (UTC), what a range resolves as of first. Resolved as of
 * the day its declarations last changed, each change (a floor raised, a test requirement added, a pin
 * bumped by a bot) would move every other package to what had come out since, so stages a few weeks
 * apart would hold different sets; as of the quarter's start they hold the same, and a change whose
 * requirements were not out by then (a floor, a pin released since) resolves as of its own day.
 * Fixed by the calendar, not by other stages: a rerun, in any order, resolves the same.
 */
export function quarterStart(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), Math.floor(date.getUTCMonth() / 3) * 3, 1));
}

/** uv's refusal of a project's own metadata as setuptools built it (a version PEP 440 does not read). */
const REFUSED_METADATA = /Failed to parse metadata from built wheel[\s\S]*Invalid version/;
/**
 * A build backend that failed on the project's own tree while uv read its metadata: uv names a
 * dependency whose build failed (`Failed to build \`name==version\``), and names none for the project
 * itself. What setup.py does beyond listing its requirements can fail on a later setuptools or in an
 * isolated build, where the project's own era installed it in place (a `license_file` naming a file
 * since renamed, which a wheel's metadata copies; a setup.py that imports its package, and so its
 * dependencies, for the version).
 */
const OWN_METADATA_FAILED = /^(?:error: )?The build backend returned an error/m;

const REFUSED = "uv refuses the project's own metadata";
/** Why the resolver could not read the project's own metadata, where that is what stopped it (else undefined). */
function ownMetadataUnread(stderr: string): string | undefined {
  if (REFUSED_METADATA.test(stderr)) return REFUSED;
  // Not where the failure tells the stage's reason: Python 2 code a literal list would only carry to the image's build.
  if (OWN_METADATA_FAILED.test(stderr) && !/Failed to build `/.test(stderr) && !convertsPython2(stderr))
    return "the project's own metadata does not build on the host";
  return undefined;
}

/** The last error line a build backend printed (`error: …`, `ImportError: …`, `distutils.errors.DistutilsError: …`), else uv's last line. */
function backendError(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(?:error|(?:[\w.]+\.)?\w*(?:Error|Exception)): /i.test(l) && !OWN_METADATA_FAILED.test(l));
  return lines.at(-1) ?? tail(stderr, 1).trim();
}

/** A resolver's or pip's output saying a package needs a newer Python than the one resolved or installed for. */
export const TOO_OLD_PYTHON =
  /(requested|current) Python version \([^)]*\) does not satisfy|requires a different Python|require a different python version/i;

async function emptied(dir: string): Promise<void> {
  for (const f of await readdir(dir)) await rm(join(dir, f), { recursive: true, force: true });
}

/**
 * Pure-Python sdists built into wheels on the host, where their build may fetch what it needs (a
 * setup_requires such as setuptools_scm, which the offline image build cannot get). A wheel tied to the
 * host's interpreter is dropped: the image builds that sdist itself.
 *
 * uv builds it (`uv build`, in an isolated environment of the sdist's build requirements, run by the
 * tools venv's Python, as pip's was), where pip's `pip wheel` spent about four CPU-s more on its own
 * start and its build environment's install (iniconfig 1.0.0: 5.4 against 1.2 CPU-s, the same files in
 * the wheel). Where uv cannot build it, pip tries as before. One whose setup.py converts its Python 2 code
 * with 2to3 as it builds (`use_2to3`) is left to the image: the host's setuptools would package the
 * code unconverted (nose 1.2.1's wheel failed at import with Python 2's print statement).
 */
async function wheelsFromSdists(
  sdists: string[],
  tools: UvTools,
  env: Record<string, string>,
  ctx: FetchContext,
  notes: string[],
): Promise<void> {
  const built: string[] = [];
  const setupScripts = await sdistTopFiles(
    tools.python,
    sdists.map((s) => join(ctx.depsDir, s)),
    'setup.py',
  );
  const converted = sdists.filter((s) => convertsWith2to3(setupScripts.get(join(ctx.depsDir, s)) ?? ''));
  if (converted.length)
    notes.push(
      `left for the image to build, whose setuptools of the Python's era converts them with 2to3 where the host's (58 on) no longer does: ${converted.join(', ')}`,
    );
  for (const sdist of sdists.filter((s) => !converted.includes(s))) {
    const out = await mkdtemp(join(tmpdir(), 'chainsmith-wheel-'));
    try {
      const from = join(ctx.depsDir, sdist);
      const byUv = await runTool(
        tools.uv,
        ['build', '--wheel', '--quiet', '--no-python-downloads', '--python', tools.python, '-o', out, from],
        { cwd: ctx.srcDir, env, signal: ctx.signal },
      );
      const r =
        byUv.code === 0
          ? byUv
          : await runTool(
              tools.python,
              ['-m', 'pip', 'wheel', '--no-deps', '--disable-pip-version-check', '--quiet', '-w', out, from],
              { cwd: ctx.srcDir, env: TOOLS_PIP_ENV, signal: ctx.signal },
            );
      const wheel = r.code === 0 ? (await readdir(out)).find((f) => /-none-any\.whl$/.test(f)) : undefined;
      if (wheel) {
        await copyFile(join(out, wheel), join(ctx.depsDir, wheel));
        built.push(wheel);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }
  if (built.length) notes.push(`built on the host from sdists (pure Python): ${built.join(', ')}`);
}

/**
 * The build requirements of the sdists the image builds (sdist-backends.ts), resolved for the target
 * Python as of the stage's date (the sdists were out by then) and downloaded beside them; not installed,
 * as requirements.txt does not list them. Those that are sdists the image builds too (a Cython with no
 * wheel for the target) are read in turn, three rounds at most. Where they do not resolve, a note says
 * so and the image's build shows what its backend lacked, as before.
 */
async function backendsOfSdists(
  d: Downloads,
  resolve: (file: string, out: string) => Promise<ToolRun>,
  notes: string[],
): Promise<void> {
  const seen = new Set<string>();
  for (let round = 0; round < 3; round++) {
    const found = [...(await sdistBuildRequires(d.tools.python, d.ctx.depsDir))].filter(([f]) => !seen.has(f));
    if (!found.length) return;
    for (const [f] of found) seen.add(f);
    const what = found.map(([f, r]) => `${f} (${r.join(', ')})`).join('; ');
    const file = join(d.ctx.srcDir, '.chainsmith-sdist-backends.in');
    const out = join(d.ctx.srcDir, '.chainsmith-sdist-backends.txt');
    await writeFile(file, [...new Set(found.flatMap(([, r]) => r))].join('\n') + '\n');
    await rm(out, { force: true });
    const r = await resolve(file, out);
    if (r.code !== 0) {
      notes.push(`the build requirements of sdists the image builds do not resolve: ${what}: ${tail(r.stderr, 1)}`);
      return;
    }
    const files = await readdir(d.ctx.depsDir);
    const pins = (await readPinned(out)).filter((l) => {
      const release = DownloadStore.release(l);
      return !release || !files.some((f) => fileRelease(f, release.version) === release.name);
    });
    if (pins.length) await downloadPins(pins, d);
    // Only the sdists this round brought: the others' host builds were tried already.
    const added = sdistsWithoutWheel(await readdir(d.ctx.depsDir)).filter((f) => !files.includes(f));
    await wheelsFromSdists(added, d.tools, d.env, d.ctx, notes);
    notes.push(
      `build requirements of sdists the image builds, downloaded beside them: ${what}: ${pins.length ? pins.join(', ') : 'all there already'}`,
    );
  }
}

/**
 * setuptools and wheel are resolved as of no earlier than the target Python's release: those of an
 * earlier date were never made to run on it, and may not import there (2014's pkg_resources looks for
 * importlib._bootstrap.SourceFileLoader, gone in 3.6), which fails the project's install and every
 * stage of its era. The project's own dependencies keep their date.
 */
function backendFloor(python: string, asOf: Date, notes: string[]): string | undefined {
  const released = finalRelease(python);
  if (!released || released <= day(asOf)) return undefined;
  notes.push(
    `setuptools and wheel are resolved as of ${released}, when Python ${python} came out, not as of ${day(asOf)}: those of before do not run on it`,
  );
  return new Date(`${released}T00:00:00Z`).toISOString();
}

/** A host command as a stage's reason shows it: the tool's name, and paths relative to the checkout (the host's temporary folders mean nothing to a reader). */
function shown(tool: string, args: string[]): string {
  const name = tool.split('/').pop();
  return [
    name,
    ...args.map((a) =>
      a
        .replace(/^\/.*\/chainsmith-src-[^/]+\//, '')
        .replace(/^\/.*\/chainsmith-pip-download-[^/]+\//, '')
        .replace(/^\/.*\/(\.partial-[^/]+|deps\/[^/]+)\/files/, '$DEPS'),
    ),
  ].join(' ');
}

/** The requirement lines of a pinned file, without comments, options and the project itself (editable, a local path). */
async function readPinned(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#') && !l.startsWith('-') && !/file:|^\.|@ \//.test(l));
}

interface UvTools {
  /** The tools' directory: uv's venv and the download store are under it. */
  dir: string;
  uv: string;
  /** The venv's Python, whose pip downloads. */
  python: string;
  version: string;
  pipVersion: string;
}

/**
 * `python -m pip download`'s arguments for exact pins read from `file`, for a target Python and its wheel
 * tags, into `dest`; `from` names where to look instead of the index (`--no-index --find-links PAGE`).
 */
export function pipDownloadArgs(
  dest: string,
  pyVersion: string,
  tags: ReturnType<typeof wheelTags>,
  file: string,
  from: string[] = [],
): string[] {
  return [
    '-m',
    'pip',
    'download',
    '--no-deps',
    '--prefer-binary',
    '--disable-pip-version-check',
    '--dest',
    dest,
    '--python-version',
    pyVersion,
    '--implementation',
    'cp',
    ...tags.abis.flatMap((a) => ['--abi', a]),
    ...tags.platforms.flatMap((p) => ['--platform', p]),
    ...from,
    '-r',
    file,
  ];
}

const installs = new Map<string, Promise<UvTools>>();

/** uv in a venv of its own under the tools directory, installed with the host's Python and pip on first use. */
function ensureUv(toolsDir: string, ctx: FetchContext): Promise<UvTools> {
  return sharedUntilFailure(installs, toolsDir, async () => {
    const venv = join(toolsDir, 'uv');
    const uv = join(venv, 'bin', 'uv');
    const python = join(venv, 'bin', 'python');
    const held = existsSync(uv) ? await installedVersion(venv, 'uv') : undefined;
    if (held !== UV_PIN) {
      ctx.log(
        held
          ? `replacing uv ${held} in ${venv} with uv ${UV_PIN}, the version resolutions are made with`
          : `installing uv ${UV_PIN} into ${venv} with the host's pip (first time only)`,
      );
      await mkdir(toolsDir, { recursive: true });
      await makeToolsVenv(venv);
    }
    const version = (await runTool(uv, ['--version'])).stdout.trim().replace(/ \(.*\)$/, '');
    if (version !== `uv ${UV_PIN}`)
      ctx.log(
        `warning: the host's index has no uv ${UV_PIN}; ${version} may refuse sdists older releases shipped (.tar.bz2)`,
      );
    const pipVersion = await installedVersion(venv, 'pip');
    return { dir: toolsDir, uv, python, version, pipVersion };
  });
}

const settings = new Map<string, Promise<Record<string, string>>>();

/**
 * uvSettings, asked once per Python and state of the host's pip configuration (`pip config list` is a
 * Python start-up, 0.36 CPU-s, and ran at every fetch): a changed PIP_* variable or pip.conf (its size
 * or time) asks again.
 */
export function uvSettings(python: string): Promise<Record<string, string>> {
  const files = [
    process.env.PIP_CONFIG_FILE,
    '/etc/pip.conf',
    '/etc/xdg/pip/pip.conf',
    join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'pip', 'pip.conf'),
    join(homedir(), '.pip', 'pip.conf'),
    process.env.VIRTUAL_ENV && join(process.env.VIRTUAL_ENV, 'pip.conf'),
  ].filter((f): f is string => !!f);
  const state = JSON.stringify([
    python,
    Object.entries(process.env).filter(([k]) => k.startsWith('PIP_')),
    files.map((f) => {
      try {
        const st = statSync(f);
        return [f, st.size, st.mtimeMs];
      } catch {
        return [f];
      }
    }),
  ]);
  return sharedUntilFailure(settings, state, () => readUvSettings(python));
}

/** The host's pip configuration (pip.conf files and PIP_* variables) as uv's variables: uv reads no pip.conf. */
async function readUvSettings(python: string): Promise<Record<string, string>> {
  const listed = (await runTool(python, ['-m', 'pip', 'config', 'list'], { env: TOOLS_PIP_ENV })).stdout;
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
