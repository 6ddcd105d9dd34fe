import { createHash } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { journaled } from '../work-journal';
import type Docker from 'dockerode';
import { StageError, StaleDependencies, ToolchainTooOld, TransientError } from '../errors';
import { stageReason } from '../stage-reason';
import type { Chain } from '../schemas';
import { BUILT_AT_FILE, checkoutLines } from '../container/checkout';
import { DockerContainer } from '../container/docker-container';
import { hasCommit } from '../container/host-repo';
import { fetchSubmodules } from '../container/submodules';
import { OWNER_LABEL, ownerLabel, sweepOrphansOnce } from '../container/orphans';
import { DEPS_MOUNT, SETUP_WARNING, type RepoFiles } from './contract';
import { DependencyCache, type FetchedDependencies } from './dependencies';
import { declarationsDate } from './declarations-date';
import { detectRecipe } from './detect';
import { MANIFEST_LABEL, readManifest, type EnvironmentManifest } from './manifest';
import { recipeFromConfig, type RecipeOverride } from './recipe';
import { commitDate, gitRepoFiles, manifestBlobs, manifestsDate, rootCommit } from './repo-files';
import { findSeed, LINEAGE_LABEL } from './seeds';
import { addToStore } from './store';
import { toolchainProbe, type Language, type LanguageSettings, type Recipe, type RunnerName } from './languages';
import { Toolchains } from './toolchains';
import { shellQuote } from '../process/shell-quote';
import { sharedUntilFailure } from '../shared-promise';

/** Environment images are tagged `chainsmith-env:<key>`. */
export const ENV_IMAGE = 'chainsmith-env';
/** On a build container, the image it builds; emptied on the image (as the owner is) so sandboxes started from it do not carry it. */
export const BUILD_LABEL = 'chainsmith.build';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Part of every image key: a change to how images are built must not reuse images built the old way. */
const LAYOUT = 4;
/** How many times a build whose resolved packages proved stale (LanguageRecipe.stale) is fetched and built again. */
const STALE_ROUNDS = 2;
/**
 * What a build's output keeps: all of it, within reason. The rules that read it (which command failed,
 * a toolchain too old, a crate that needs nightly, stale packages, setup warnings) look for lines
 * anywhere in it, and a build of many crates or modules prints far more than a reason shows; the
 * reason keeps its own last lines (stageReason).
 */
const BUILD_OUTPUT_CHARS = 2_000_000;

export interface Environment {
  image: string;
  recipe: Recipe;
  language: Language;
  /** How the stage's tests run and report per-test outcomes (a language's runners, src/environments/languages/<lang>/). */
  runner: RunnerName;
  /** A configured test command that replaces the runner's own. */
  test?: string;
  /** Put first on PATH for a test run after a change, where the image holds the merge's own resolution apart (LanguageRecipe.mergedPath). */
  afterChangePath?: string[];
  /** Host directories every sandbox of the environment mounts read-only, by their path inside (LanguageRecipe.dependencyStore). */
  mounts?: Record<string, string>;
  /** The image's manifest; where the dependencies live in a store beside the image, its resolution is the stage's own. */
  manifest: EnvironmentManifest;
}

export interface EnvironmentOptions {
  baseImage: string;
  /** Fetched dependencies and toolchain build caches live under it. */
  dataDir: string;
  /** Recipes by repository name; the others are detected. */
  overrides: Record<string, RecipeOverride>;
  network: 'none' | 'default';
  timeoutSeconds: number;
  memoryMb: number;
  pidsLimit: number;
  cpus: number;
  /** The test command where no language is recognised (sandbox.testCommand). */
  defaultTestCommand: string;
  /** The config's environments section, where each language reads its own settings (Python's host prefixes). */
  settings?: LanguageSettings;
  /** Progress of builds and fetches (stderr of the worker by default). */
  log?: (line: string) => void;
  /** A recipe the setup agent saved for the stage's era (src/setup-agent), used where `overrides` names none and before detection. */
  savedRecipe?: (repoName: string, repoPath: string, baseSha: string) => Promise<RecipeOverride | undefined>;
}

interface Resolved {
  recipe: Recipe;
  sha: string;
  repoPath: string;
  repoName: string;
  /** What the image key hashes besides the resolved packages: repository history, toolchain, recipe. */
  keyParts: unknown[];
  /** The manifests' blob ids at the base: a failed build is not tried again for the same ones. */
  manifests: string;
  /** Only for a recipe that fetches: what its dependencies are keyed on and resolved as of. */
  depsKey: string;
  asOf?: Date;
  /** The PR's merge, where its manifests differ from the base's and the recipe takes them in (LanguageRecipe.withMerged). */
  merged?: { sha: string; asOf: Date };
  /** Images of one lineage may seed each other's builds (LanguageRecipe.reuse). */
  lineage: string;
  /** The host directory of the repository's dependency store, where the recipe keeps one (LanguageRecipe.dependencyStore). */
  store?: string;
  /** The recipe's fallback, resolved the same way. */
  fallback?: Resolved;
  /** Packages raised past what the recipe resolved (LanguageRecipe.stale), and the key of the fetch they were raised from. */
  raise?: { packages: string[]; from: string };
}

/**
 * Per-repository environments. A stage's recipe comes from the config or is detected from the
 * repository's files at the stage's base. Its dependencies are fetched on the host into a cache keyed
 * by (history, the manifests' dependency declarations, resolution date where the recipe resolves by
 * date); the recipe's setup then runs once, without network, in a container from its toolchain image
 * with that cache mounted read-only, and the container is committed as an image holding what setup
 * installed outside the working tree, with a manifest label saying what it holds. The image is keyed
 * by what it contains: the repository, the toolchain, the recipe and the resolved packages with their
 * versions, not the commit or the manifests' bytes. Every stage that resolves to the same set starts
 * from the same image, however far apart in history. A stage whose PR changes a manifest gets an
 * environment that holds what its merge needs as well (LanguageRecipe.withMerged).
 */
export class Environments {
  /** Builds under way, and recipes that failed (they stay failed for this process). */
  private readonly builds = new Map<string, Promise<EnvironmentManifest>>();
  /**
   * Builds that failed, by image and manifests (their blob ids): setup runs on the stage's tree (a
   * compile, an editable install), so a failure at one era's manifests says nothing of an era whose
   * manifests differ, though both would hold the same packages. They stay failed for this process.
   */
  private readonly failed = new Map<string, Promise<EnvironmentManifest>>();
  /** Recipe and image per repository and base: every round of a stage asks again. */
  private readonly known = new Map<string, Promise<Resolved>>();
  readonly toolchains: Toolchains;
  /** The images this process built, with the bytes each one's own layer adds (for `validate` and the benchmarks). */
  readonly built: BuiltImage[] = [];
  private readonly deps: DependencyCache;
  private readonly log: (line: string) => void;

  constructor(
    private readonly docker: Docker,
    private readonly opts: EnvironmentOptions,
  ) {
    this.toolchains = new Toolchains(docker, { baseImage: opts.baseImage, dataDir: opts.dataDir });
    this.deps = new DependencyCache(opts.dataDir);
    this.log = opts.log ?? ((line) => process.stderr.write(`[environments] ${line}\n`));
  }

  async forStage(chain: Chain, stage: number): Promise<Environment> {
    let resolved = await this.withStale(await this.resolved(chain, stage));
    let raises = 0;
    for (;;) {
      try {
        const deps = await this.dependencies(resolved, true);
        const image = imageKey(resolved, deps);
        const manifest = await this.build(image, resolved, deps);
        const { recipe } = resolved;
        const afterChange =
          manifest.resolution?.merged && recipe.mergedPath ? { afterChangePath: recipe.mergedPath } : {};
        const store =
          resolved.store && recipe.dependencyStore ? { mounts: { [resolved.store]: recipe.dependencyStore.dir } } : {};
        return {
          image,
          recipe,
          language: recipe.language,
          runner: recipe.runner,
          ...(recipe.test ? { test: recipe.test } : {}),
          ...afterChange,
          ...store,
          // An image shared by stages whose dependencies differ records its first stage's: each stage is told its own.
          manifest:
            store.mounts && deps
              ? {
                  ...manifest,
                  resolution: { ...deps.resolution, key: deps.key, fetchSeconds: deps.fetchSeconds },
                }
              : manifest,
        };
      } catch (err) {
        if (err instanceof StaleDependencies && raises++ < STALE_ROUNDS) {
          resolved = raised(resolved, err.packages);
          await this.deps.markStale(resolved.raise!.from, resolved.raise!.packages);
          this.log(
            `${resolved.repoName} at ${resolved.sha.slice(0, 12)}: ${err.message}; fetching again with ${err.packages.join(', ')} raised to their newest allowed releases`,
          );
          continue;
        }
        if (!(err instanceof ToolchainTooOld)) throw err;
        if (!resolved.fallback)
          throw err.reason
            ? err
            : new ToolchainTooOld(err.message, {
                cause: err,
                reason: stageReason('unsupported', lastToolchainRefused(resolved.recipe, err.message)),
              });
        this.log(
          `${resolved.repoName} at ${resolved.sha.slice(0, 12)}: ${err.message}; building on ${resolved.fallback.recipe.toolchain.image} instead`,
        );
        resolved = await this.withStale(resolved.fallback);
      }
    }
  }

  /** The commits' submodules brought into the clone for sandboxes to check out; one that cannot be had is said, and the stage goes on. */
  private async submodules(repoPath: string, shas: string[]): Promise<void> {
    for (const sha of shas) {
      const missing = await fetchSubmodules(repoPath, sha).catch((err: Error) => [`cannot read them: ${err.message}`]);
      for (const line of missing) this.log(`${repoPath} at ${sha.slice(0, 12)}: submodule ${line}`);
    }
  }

  /** Where fetched dependencies, build caches and tools are kept (a disk validation writes to). */
  get dataDir(): string {
    return this.opts.dataDir;
  }

  /** `r` with the packages that earlier builds of its dependencies showed stale raised (DependencyCache.markStale). */
  private async withStale(r: Resolved): Promise<Resolved> {
    if (!r.recipe.stale || !r.depsKey) return r;
    const packages = await this.deps.stale(r.depsKey);
    return packages.length ? raised(r, packages) : r;
  }

  /** Forgets the recipes resolved for a repository's stages: the setup agent saved one that replaces detection's. */
  forget(repoName: string): void {
    for (const key of this.known.keys()) if (key.startsWith(`${repoName}\0`)) this.known.delete(key);
  }

  /**
   * Where gold validation's sandboxes of this environment share its recipe's build cache
   * (LanguageRecipe.sharedCache): a host directory per language under the data directory, writable by
   * the sandbox's user; undefined for a recipe without one.
   */
  async sharedCache(
    env: Environment,
  ): Promise<{ cacheMounts: Record<string, string>; env: string[]; seed?: string } | undefined> {
    const cache = env.recipe.sharedCache;
    if (!cache) return undefined;
    const host = join(this.opts.dataDir, 'build-cache', env.language);
    await mkdir(host, { recursive: true });
    // The sandbox's user (uid 1000) writes it, whoever the worker runs as.
    await chmod(host, 0o777);
    // What the image's setup compiled (its whole project, at the commit it was built at), copied in once
    // per image without overwriting: otherwise the first stages on each toolchain would compile it all again.
    const marker = `${cache.dir}/.seeded-${env.image.replace(/[^\w.-]/g, '_')}`;
    const seeded = cache.seedFrom
      ? `if [ ! -e ${marker} ] && [ -d ${cache.seedFrom} ]; then cp -Rn ${cache.seedFrom}/. ${cache.dir}/ 2>/dev/null || true; touch ${marker}; fi`
      : undefined;
    const link = cache.link
      ? `rm -rf ${cache.link} && mkdir -p $(dirname ${cache.link}) && ln -s ${cache.dir} ${cache.link}`
      : undefined;
    const seed = seeded && link ? `${seeded}\n${link}` : (seeded ?? link);
    return {
      cacheMounts: { [host]: cache.dir },
      env: Object.entries(cache.env).map(([k, v]) => `${k}=${v}`),
      ...(seed ? { seed } : {}),
    };
  }

  /** The stage's recipe, detected (or configured) from its base: nothing is fetched or built. */
  async recipeFor(chain: Chain, stage: number): Promise<Recipe> {
    return (await this.resolved(chain, stage)).recipe;
  }

  /** The stage's environment where its image is on this engine already, else undefined: nothing is fetched or built. */
  async builtForStage(chain: Chain, stage: number): Promise<Environment | undefined> {
    let resolved: Resolved | undefined = await this.withStale(await this.resolved(chain, stage));
    while (resolved) {
      const deps = await this.dependencies(resolved, false).catch((err) => {
        if (err instanceof ToolchainTooOld) return null;
        throw err;
      });
      if (deps === null) resolved = resolved.fallback && (await this.withStale(resolved.fallback));
      else if (resolved.recipe.fetch && !deps) return undefined;
      else return (await this.exists(imageKey(resolved, deps))) ? this.forStage(chain, stage) : undefined;
    }
    return undefined;
  }

  /** The recipe's fetched dependencies (fetched now where `fetch`, else only where on disk already); undefined for a recipe that fetches nothing. */
  private async dependencies(r: Resolved, fetch: boolean): Promise<FetchedDependencies | undefined> {
    if (!r.recipe.fetch || !r.asOf) return undefined;
    const deps = fetch ? await this.fetched(r) : await this.deps.cached(r.depsKey);
    const kept = r.recipe.dependencyStore;
    // Once per fetch (a marker in the store says it was), also for a fetch an earlier process left on disk.
    if (deps && kept && r.store) await addToStore(join(deps.dir, kept.from), r.store, deps.key, kept.leaveOut);
    return deps;
  }

  private fetched(r: Resolved): Promise<FetchedDependencies> {
    return this.deps.get({
      repoName: r.repoName,
      repoPath: r.repoPath,
      sha: r.sha,
      recipe: r.recipe,
      key: r.depsKey,
      asOf: r.asOf!,
      ...(r.merged ? { merged: r.merged } : {}),
      ...(r.store ? { store: r.store } : {}),
      ...(r.raise ? { raise: r.raise.packages } : {}),
      log: this.log,
    });
  }

  /**
   * The tag of the stage's environment image from what is resolved and fetched already, nothing
   * fetched or built: two stages with one tag share one environment. Throws where the dependencies
   * are not fetched yet.
   */
  async imageFor(chain: Chain, stage: number): Promise<string> {
    const r = await this.withStale(await this.resolved(chain, stage));
    const deps = await this.dependencies(r, false).catch(() => undefined);
    // A fetch that never completed (it failed) has no packages to key on: what it would fetch stands for them.
    return deps || !r.recipe.fetch ? imageKey(r, deps) : `${ENV_IMAGE}:deps-${r.depsKey}`;
  }

  private resolved(chain: Chain, stage: number): Promise<Resolved> {
    const key = `${chain.repo.name}\0${chain.repo.path}\0${chain.prs[stage].baseSha}\0${chain.prs[stage].mergeSha}`;
    return sharedUntilFailure(this.known, key, () => this.resolve(chain, stage));
  }

  /** The image's build, shared by concurrent callers; asked every time (one engine request): an image removed meanwhile is built again. */
  private build(
    image: string,
    resolved: Resolved,
    deps: FetchedDependencies | undefined,
  ): Promise<EnvironmentManifest> {
    const era = `${image}\0${resolved.manifests}`;
    const failed = this.failed.get(era);
    if (failed) return failed;
    let build = this.builds.get(image);
    if (!build) {
      build = this.ensure(image, resolved, deps);
      this.builds.set(image, build);
      build.then(
        () => this.builds.delete(image),
        (err) => {
          this.builds.delete(image);
          if (err instanceof StageError) this.failed.set(era, build!);
        },
      );
    }
    return build;
  }

  private async exists(image: string): Promise<boolean> {
    return (await readManifest(this.docker, image)) !== undefined;
  }

  private async resolve(chain: Chain, stage: number): Promise<Resolved> {
    const repoPath = chain.repo.path;
    const pr = chain.prs[stage];
    const files = await gitRepoFiles(repoPath, pr.baseSha).catch(async (err) => {
      if (await hasCommit(repoPath, pr.baseSha)) throw err;
      const why = `the base commit ${pr.baseSha} of PR #${pr.number} does not exist in ${repoPath}`;
      throw new StageError(why, { reason: stageReason('invalid-inputs', why) });
    });
    // A merge this clone lacks adds nothing: the base's manifests alone decide.
    const merged = await gitRepoFiles(repoPath, pr.mergeSha).catch(() => undefined);
    await this.submodules(repoPath, merged ? [pr.baseSha, pr.mergeSha] : [pr.baseSha]);
    const saved = this.opts.overrides[chain.repo.name]
      ? undefined
      : await this.opts.savedRecipe?.(chain.repo.name, repoPath, pr.baseSha);
    const override = this.opts.overrides[chain.repo.name] ?? saved;
    const recipe = override
      ? { ...recipeFromConfig(override, this.opts.defaultTestCommand), ...(saved ? { origin: 'setup-agent' } : {}) }
      : await detectRecipe(files, {
          defaultTestCommand: this.opts.defaultTestCommand,
          ...(merged ? { merged } : {}),
          baseDate: () => commitDate(repoPath, pr.baseSha),
          repo: { path: repoPath, sha: pr.baseSha, merge: pr.mergeSha },
          repoName: chain.repo.name,
          ...(this.opts.settings ? { settings: this.opts.settings } : {}),
          testFiles: pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path),
        });
    // Clones of one history share its root commit.
    const history = await rootCommit(repoPath, pr.baseSha);
    const blobs = await manifestBlobs(repoPath, pr.baseSha, recipe.manifests, files.entries);
    // A recipe and its fallback (another toolchain) date the same manifests alike: walked once.
    const dates = new Map<string, Promise<Date>>();
    const keyed = async (recipe: Recipe): Promise<Resolved> => {
      const toolchain = this.toolchains.image(recipe.toolchain);
      const hash = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
      // The dependency declarations (a version bump of the project itself left out) decide the fetch, not the manifests' bytes.
      const declared = recipe.dependencyText ? await dependencyDeclarations(recipe, files) : blobs;
      const mergedDeclared =
        recipe.fetch && recipe.withMerged && merged
          ? recipe.dependencyText
            ? await dependencyDeclarations(recipe, merged)
            : await manifestBlobs(repoPath, pr.mergeSha, recipe.manifests, merged.entries)
          : declared;
      // Walking back to the declarations' last change can take most of a second on a long history: only a fetch that resolves by date needs it.
      const dateOf = (sha: string) => {
        const how = `${sha}\0${recipe.manifests.join('\0')}\0${recipe.pinned ? 'pinned' : recipe.dependencyText ? 'declared' : 'bytes'}`;
        const known = dates.get(how);
        if (known) return known;
        const date = recipe.pinned
          ? commitDate(repoPath, sha)
          : recipe.dependencyText
            ? declarationsDate(repoPath, sha, recipe.manifests, async (rev) =>
                dependencyDeclarations(recipe, await gitRepoFiles(repoPath, rev)),
              )
            : manifestsDate(repoPath, sha, recipe.manifests);
        dates.set(how, date);
        return date;
      };
      const asOf = recipe.fetch ? await dateOf(pr.baseSha) : undefined;
      const withMerge =
        recipe.fetch && mergedDeclared !== declared ? { sha: pr.mergeSha, asOf: await dateOf(pr.mergeSha) } : undefined;
      const depsKey =
        recipe.fetch && asOf
          ? hash([
              recipe.origin,
              history,
              declared,
              recipe.pinned ? 'pinned' : asOf.toISOString(),
              ...(recipe.fetchRevision ? [recipe.fetchRevision] : []),
              ...(recipe.fetchKey ? [recipe.fetchKey] : []),
              ...(recipe.prAdds ? [recipe.prAdds] : []),
              ...(recipe.toolchain.prefix ? [recipe.toolchain.version] : []),
              ...(withMerge
                ? [
                    {
                      merged: mergedDeclared,
                      asOf: recipe.pinned ? 'pinned' : withMerge.asOf.toISOString(),
                      how: typeof recipe.withMerged === 'function' ? 'function' : recipe.withMerged,
                    },
                  ]
                : []),
            ]).slice(0, 24)
          : '';
      // What the image holds besides its packages. The fallback, how a build says it needs it, and what
      // decides the fetch (manifests, what the PR adds) are not part of it: the resolved packages are.
      // A configured recipe installs from files only the user knows: its manifests' contents stay in.
      // Nor how the merge's resolution joins (its packages are in the key where it is installed apart), nor a build cache shared at run time.
      const holds = Object.fromEntries(Object.entries(recipe).filter(([field]) => !NOT_HELD.has(field)));
      // The toolchain's note is prose for the user (Python's names the stage's date): the image, version and prefix decide.
      const { note, ...toolchainHeld } = recipe.toolchain;
      void note;
      const keyParts = [
        LAYOUT,
        toolchain,
        this.opts.network,
        { ...holds, toolchain: toolchainHeld },
        history,
        recipe.origin === 'config' || recipe.origin === 'setup-agent' ? blobs : '',
      ];
      const lineage = hash([LAYOUT, toolchain, this.opts.network, recipe.origin, history]).slice(0, 16);
      return {
        recipe,
        sha: pr.baseSha,
        repoPath,
        repoName: chain.repo.name,
        keyParts,
        manifests: blobs,
        depsKey,
        asOf,
        lineage,
        ...(recipe.dependencyStore
          ? { store: join(this.opts.dataDir, 'dependency-store', `${recipe.language}-${history.slice(0, 16)}`) }
          : {}),
        ...(withMerge ? { merged: withMerge } : {}),
        ...(recipe.fallback ? { fallback: await keyed(recipe.fallback) } : {}),
      };
    };
    return keyed(recipe);
  }

  private async ensure(
    image: string,
    r: Resolved,
    deps: FetchedDependencies | undefined,
  ): Promise<EnvironmentManifest> {
    const existing = await readManifest(this.docker, image);
    if (existing) return existing;
    // One build of an image, whoever asks: the durability bench counts a second one as work redone.
    return journaled('build', image, () => this.buildImage(image, r, deps), { global: true });
  }

  private async buildImage(
    image: string,
    r: Resolved,
    deps: FetchedDependencies | undefined,
  ): Promise<EnvironmentManifest> {
    const start = Date.now();
    const { recipe } = r;
    const toolchain = await this.toolchains.ensure(recipe.toolchain, this.log);
    await sweepOrphansOnce(this.docker);
    const seed = recipe.reuse ? await findSeed(this.docker, r.lineage, r.repoPath, r.sha, recipe.reuse) : undefined;
    this.log(
      `building the environment ${image} of ${r.repoName} (${recipe.origin}) on ${seed ? `${seed.image}, built at ${seed.builtAt.slice(0, 12)} (reusing ${recipe.reuse})` : toolchain}`,
    );
    const sandbox = await DockerContainer.create(this.docker, {
      image: seed?.image ?? toolchain,
      mirrorPath: r.repoPath,
      labels: { [BUILD_LABEL]: image, ...ownerLabel() },
      memoryMb: this.opts.memoryMb,
      pidsLimit: this.opts.pidsLimit,
      cpus: this.opts.cpus,
      network: this.opts.network,
      readOnlyMounts: {
        ...(deps ? { [deps.dir]: DEPS_MOUNT } : {}),
        ...(r.store && recipe.dependencyStore ? { [r.store]: recipe.dependencyStore.dir } : {}),
      },
    });
    try {
      const exportLines = [
        ...Object.entries(recipe.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
        ...(recipe.path.length ? [`export PATH=${recipe.path.join(':')}:$PATH`] : []),
      ];
      const script = [
        ...checkoutLines(r.sha),
        // What the products the setup leaves outside the tree were built from: sandboxes date back the files that have not changed since (checkoutLines).
        `echo ${r.sha} > ${BUILT_AT_FILE}`,
        'export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1',
        ...exportLines,
        ...[...recipe.setup, ...(deps?.resolution.merged ? (recipe.mergedSetup ?? []) : [])].flatMap((cmd) => [
          `echo ${shellQuote(`$ ${echoed(cmd)}`)}`,
          cmd,
        ]),
      ];
      const run = await sandbox.exec(`set -euo pipefail\n${script.join('\n')}`, {
        timeoutSeconds: this.opts.timeoutSeconds,
        maxOutputChars: BUILD_OUTPUT_CHARS,
        cwd: '/work',
      });
      if (run.exitCode !== 0) {
        // The script echoes each setup command before it runs: the last one echoed is the one that failed.
        const failed = { command: failedSetupCommand(run.output), exitCode: run.exitCode, output: run.output };
        const tooOld = recipe.tooOld?.exec(run.output);
        if (tooOld) {
          const message = `the build at ${r.sha.slice(0, 12)} says: ${tooOld[0]}`;
          const summary = recipe.fallback
            ? `the toolchain is too old for what the build needs: ${tooOld[0]}`
            : lastToolchainRefused(recipe, message);
          const err = new ToolchainTooOld(message, { reason: stageReason('unsupported', summary, failed) });
          if (r.depsKey) await this.deps.markTooOld(r.depsKey, err.message);
          throw err;
        }
        const unsupported = recipe.unsupported?.(run.output);
        if (unsupported)
          throw new StageError(`the build at ${r.sha.slice(0, 12)} says: ${unsupported}`, {
            reason: stageReason('unsupported', unsupported, failed),
          });
        const why = run.timedOut ? `timed out after ${this.opts.timeoutSeconds}s` : `exit code ${run.exitCode}`;
        const summary = `the environment recipe of ${r.repoName} (${recipe.origin}) failed to build at ${r.sha.slice(0, 12)} (${why})`;
        const reason = stageReason(run.timedOut ? 'timeout' : 'build-failed', summary, failed);
        const stale = (recipe.stale?.(run.output) ?? []).filter((p) => !r.raise?.packages.includes(p));
        if (stale.length && r.depsKey)
          throw new StaleDependencies(
            `${stale.join(', ')} did not compile on ${recipe.toolchain.image} ${recipe.toolchain.version}`,
            stale,
            {
              reason,
            },
          );
        throw new StageError(`${summary}:\n${run.output.trim().slice(-4_000)}`, { reason });
      }
      for (const line of run.output.split('\n'))
        if (line.startsWith(SETUP_WARNING)) this.log(`${image}: ${line.slice(SETUP_WARNING.length).trim()}`);
      // Probed as the sandboxes will run it: with the recipe's variables and PATH (a Go toolchain module first on it, say).
      const probe = await sandbox.exec([...exportLines, toolchainProbe(recipe.toolchain.image)].join('\n'), {
        timeoutSeconds: 60,
        maxOutputChars: 2_000,
        cwd: '/work',
      });
      const manifest: EnvironmentManifest = {
        repo: r.repoName,
        language: recipe.language,
        origin: recipe.origin,
        runner: recipe.runner,
        builtAt: r.sha,
        toolchain: {
          name: recipe.toolchain.image,
          image: toolchain,
          // Maven colours its banner even without a terminal.
          version: probe.output
            .replace(/\x1b\[[0-9;]*m/g, '')
            .trim()
            .split('\n')
            .join(' / '),
          ...(recipe.toolchain.version ? { wanted: recipe.toolchain.version } : {}),
          ...(recipe.toolchain.note ? { note: recipe.toolchain.note } : {}),
        },
        ...(deps ? { resolution: { ...deps.resolution, key: deps.key, fetchSeconds: deps.fetchSeconds } } : {}),
        ...(seed ? { seed } : {}),
        buildSeconds: Math.round((Date.now() - start) / 100) / 10,
        createdAt: new Date().toISOString(),
      };
      const env = Object.entries({ ...recipe.env, PATH: [...recipe.path, SYSTEM_PATH].join(':') }).map(
        ([k, v]) => `ENV ${k}=${JSON.stringify(v)}`,
      );
      await sandbox.container.commit({
        repo: ENV_IMAGE,
        tag: image.slice(ENV_IMAGE.length + 1),
        changes: [
          // The build container's PID 1 ran as root (docker-sandbox.ts); the image keeps the base's user and command.
          'USER agent',
          'CMD ["sleep", "infinity"]',
          ...env,
          `LABEL ${BUILD_LABEL}="" ${OWNER_LABEL}="" chainsmith.env.repo=${JSON.stringify(r.repoName)} chainsmith.env.recipe=${JSON.stringify(recipe.origin)} ${MANIFEST_LABEL}=${JSON.stringify(JSON.stringify(manifest))}`,
          ...(recipe.reuse ? [`LABEL ${LINEAGE_LABEL}=${r.lineage}`] : []),
        ],
      });
      const layerBytes = (await this.docker.getImage(image).history())[0]?.Size ?? 0;
      this.built.push({
        image,
        repo: r.repoName,
        language: recipe.language,
        seconds: manifest.buildSeconds,
        layerBytes,
      });
      this.log(
        `built ${image} in ${manifest.buildSeconds}s (${manifest.toolchain.version}; its own layer ${(layerBytes / 1e6).toFixed(1)} MB)`,
      );
      return manifest;
    } catch (err) {
      if (err instanceof StageError) throw err;
      throw new TransientError(`cannot build the environment image ${image}: ${(err as Error).message}`, {
        cause: err,
      });
    } finally {
      await sandbox.destroy();
    }
  }
}

/**
 * A setup command as the build's output echoes it: a command of several lines (one that writes a script)
 * as its first line, so that the output's last lines, which a failed stage's reason keeps, are what the
 * commands printed.
 */
function echoed(cmd: string): string {
  const lines = cmd.split('\n');
  return lines.length > 1 ? `${lines[0]} … (${lines.length - 1} more lines)` : cmd;
}

/**
 * Why a stage's build stopped on the last toolchain of its recipe's ladder: "too old" would be a guess
 * there, where none here has what the build uses (E0658 on the newest rustc: a feature no stable
 * release has). Alike whether the refusal was seen now or remembered from an earlier fetch.
 */
function lastToolchainRefused(recipe: Recipe, message: string): string {
  return `no toolchain here has what the build needs (${recipe.toolchain.image} ${recipe.toolchain.version}, the last tried: ${message})`;
}

/** The setup command a failed build script ran last (each is echoed as `$ command` before it runs); the checkout where none was. */
export function failedSetupCommand(output: string): string {
  const echoed = output
    .split('\n')
    .filter((l) => l.startsWith('$ '))
    .pop()
    ?.slice(2);
  return echoed ?? "git checkout (the stage's base, before any setup command)";
}

/** An image this process built: `layerBytes` is what its own (top) layer adds to the image it was built on (Docker's image history). */
export interface BuiltImage {
  image: string;
  repo: string;
  language: Language;
  seconds: number;
  layerBytes: number;
}

/** Recipe fields that are not what an image holds (see the image key in resolve). */
const NOT_HELD: ReadonlySet<string> = new Set<keyof Recipe>([
  'fallback',
  'tooOld',
  'manifests',
  'prAdds',
  'fetchRevision',
  'fetchKey',
  'withMerged',
  'mergedSetup',
  'mergedPath',
  'sharedCache',
]);

/** The image of a resolved recipe: what it holds, the resolved packages with their versions included. */
function imageKey(r: Resolved, deps: FetchedDependencies | undefined): string {
  const names = (list: Array<{ name: string; version: string }>) => list.map((p) => `${p.name}@${p.version}`).sort();
  const merged = deps?.resolution.merged ? { merged: names(deps.resolution.merged.packages) } : {};
  // Dependencies kept in a store beside the image are not in it: its key leaves them out.
  const packages =
    deps && !r.recipe.dependencyStore
      ? {
          ecosystem: deps.resolution.ecosystem,
          packages: names(deps.resolution.packages),
          ...merged,
          ...(deps.resolution.artifacts ? { artifacts: deps.resolution.artifacts } : {}),
        }
      : null;
  return `${ENV_IMAGE}:${createHash('sha256')
    .update(JSON.stringify([...r.keyParts, packages]))
    .digest('hex')
    .slice(0, 16)}`;
}

/** The recipe's manifests at a commit as `dependencyText` reads them: what its fetch is keyed on. */
async function dependencyDeclarations(recipe: Recipe, files: RepoFiles): Promise<string> {
  const texts = await Promise.all(
    recipe.manifests.map(async (m) => `${m}\n${recipe.dependencyText!(m, (await files.read(m)) ?? '(missing)')}`),
  );
  return createHash('sha256').update(texts.join('\0')).digest('hex');
}

/** `r` with `packages` raised as well: a fetch of its own, keyed on the one it was raised from. */
function raised(r: Resolved, packages: string[]): Resolved {
  const from = r.raise?.from ?? r.depsKey;
  const all = [...new Set([...(r.raise?.packages ?? []), ...packages])].sort();
  const depsKey = createHash('sha256')
    .update(JSON.stringify([from, 'raise', all]))
    .digest('hex')
    .slice(0, 24);
  return { ...r, depsKey, raise: { packages: all, from } };
}
