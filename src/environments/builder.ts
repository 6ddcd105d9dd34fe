import { createHash } from 'node:crypto';
import { journaled } from '../work-journal';
import type Docker from 'dockerode';
import { StageError, ToolchainTooOld, TransientError } from '../errors';
import type { Chain } from '../schemas';
import { checkoutLines } from '../sandbox/checkout';
import { DockerSandbox } from '../sandbox/docker-sandbox';
import { hasCommit } from '../sandbox/host-repo';
import { OWNER_LABEL, ownerLabel, sweepOrphansOnce } from '../sandbox/orphans';
import { DEPS_MOUNT, type Language, type LanguageRecipe, type RunnerName } from './contract';
import { DependencyCache, type FetchedDependencies } from './dependencies';
import { detectRecipe } from './detect';
import { MANIFEST_LABEL, readManifest, type EnvironmentManifest } from './manifest';
import { recipeFromConfig, type RecipeOverride } from './recipe';
import { commitDate, gitRepoFiles, manifestBlobs, manifestsDate, rootCommit } from './repo-files';
import { findSeed, LINEAGE_LABEL } from './seeds';
import { TOOLCHAIN_PROBES, Toolchains } from './toolchains';

/** Environment images are tagged `chainsmith-env:<key>`. */
export const ENV_IMAGE = 'chainsmith-env';
/** On a build container, the image it builds; emptied on the image (as the owner is) so sandboxes started from it do not carry it. */
export const BUILD_LABEL = 'chainsmith.build';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Part of every image key: a change to how images are built must not reuse images built the old way. */
const LAYOUT = 3;

export interface Environment {
  image: string;
  recipe: LanguageRecipe;
  language: Language;
  /** How the stage's tests run and report per-test outcomes (src/environments/runners). */
  runner: RunnerName;
  /** A configured test command that replaces the runner's own. */
  test?: string;
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
  /** CPython prefixes added to those pyenv provides (environments.pythons). */
  pythons?: string[];
  /** Progress of builds and fetches (stderr of the worker by default). */
  log?: (line: string) => void;
}

interface Resolved {
  image: string;
  recipe: LanguageRecipe;
  sha: string;
  repoPath: string;
  repoName: string;
  /** Only for a recipe that fetches: what its dependencies are keyed on and resolved as of. */
  depsKey: string;
  asOf?: Date;
  /** Images of one lineage may seed each other's builds (LanguageRecipe.reuse). */
  lineage: string;
  /** The recipe's fallback, resolved the same way. */
  fallback?: Resolved;
}

/**
 * Per-repository environments. A stage's recipe comes from the config or is detected from the
 * repository's files at the stage's base. Its dependencies are fetched on the host into a cache keyed
 * by (history, manifests, resolution date); the recipe's setup then runs once, without network, in a
 * container from its toolchain image with that cache mounted read-only, and the container is committed
 * as an image holding what setup installed outside the working tree, with a manifest label saying what
 * it holds. Every stage whose repository, recipe and manifests are the same starts from that image.
 */
export class Environments {
  /** Builds under way, and recipes that failed (they stay failed for this process). */
  private readonly builds = new Map<string, Promise<EnvironmentManifest>>();
  /** Recipe and image per repository and base: every round of a stage asks again. */
  private readonly known = new Map<string, Promise<Resolved>>();
  readonly toolchains: Toolchains;
  private readonly deps: DependencyCache;
  private readonly log: (line: string) => void;

  constructor(
    private readonly docker: Docker,
    private readonly opts: EnvironmentOptions,
  ) {
    this.toolchains = new Toolchains(docker, { baseImage: opts.baseImage, dataDir: opts.dataDir, ...(opts.pythons ? { pythons: opts.pythons } : {}) });
    this.deps = new DependencyCache(opts.dataDir);
    this.log = opts.log ?? ((line) => process.stderr.write(`[environments] ${line}\n`));
  }

  async forStage(chain: Chain, stage: number): Promise<Environment> {
    let resolved = await this.resolved(chain, stage);
    // A fallback image exists only where the recipe's own could not be built (a rerun does not fetch again to learn it).
    if (resolved.fallback && !(await this.exists(resolved.image)) && (await this.exists(resolved.fallback.image))) resolved = resolved.fallback;
    let manifest: EnvironmentManifest;
    for (;;) {
      try {
        manifest = await this.build(resolved);
        break;
      } catch (err) {
        if (!(err instanceof ToolchainTooOld) || !resolved.fallback) throw err;
        this.log(`${resolved.repoName} at ${resolved.sha.slice(0, 12)}: ${err.message}; building on ${resolved.fallback.recipe.toolchain.image} instead`);
        resolved = resolved.fallback;
      }
    }
    const { recipe } = resolved;
    return { image: resolved.image, recipe, language: recipe.language, runner: recipe.runner, ...(recipe.test ? { test: recipe.test } : {}), manifest };
  }

  /** The stage's environment where its image is on this engine already, else undefined: nothing is built. */
  async builtForStage(chain: Chain, stage: number): Promise<Environment | undefined> {
    const resolved = await this.resolved(chain, stage);
    if (!(await this.exists(resolved.image)) && !(resolved.fallback && (await this.exists(resolved.fallback.image)))) return undefined;
    return this.forStage(chain, stage);
  }

  /** The tag the stage's environment image has or would have, nothing built: two stages with one tag share one environment. */
  async imageFor(chain: Chain, stage: number): Promise<string> {
    return (await this.resolved(chain, stage)).image;
  }

  private resolved(chain: Chain, stage: number): Promise<Resolved> {
    const key = `${chain.repo.name}\0${chain.repo.path}\0${chain.prs[stage].baseSha}\0${chain.prs[stage].mergeSha}`;
    let known = this.known.get(key);
    if (!known) {
      known = this.resolve(chain, stage);
      this.known.set(key, known);
      known.catch(() => this.known.delete(key));
    }
    return known;
  }

  /** The image's build, shared by concurrent callers; asked every time (one engine request): an image removed meanwhile is built again. */
  private build(resolved: Resolved): Promise<EnvironmentManifest> {
    let build = this.builds.get(resolved.image);
    if (!build) {
      build = this.ensure(resolved);
      this.builds.set(resolved.image, build);
      build.then(
        () => this.builds.delete(resolved.image),
        (err) => err instanceof StageError || this.builds.delete(resolved.image),
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
      throw new StageError(`the base commit ${pr.baseSha} of PR #${pr.number} does not exist in ${repoPath}`);
    });
    const override = this.opts.overrides[chain.repo.name];
    const python = { provided: await this.toolchains.pythons(), baseDate: () => commitDate(repoPath, pr.baseSha) };
    const recipe = override
      ? recipeFromConfig(override, this.opts.defaultTestCommand)
      : await detectRecipe(files, {
          defaultTestCommand: this.opts.defaultTestCommand,
          // A merge this clone lacks adds nothing: the base's manifests alone decide.
          merged: await gitRepoFiles(repoPath, pr.mergeSha).catch(() => undefined),
          python,
          testFiles: pr.files.filter((f) => f.kind === 'test' && f.status !== 'deleted').map((f) => f.path),
        });
    // Clones of one history share its root commit; the manifests' blob ids change exactly when the dependencies may.
    const history = await rootCommit(repoPath, pr.baseSha);
    const blobs = await manifestBlobs(repoPath, pr.baseSha, recipe.manifests, files.entries);
    // Walking back to the manifests' last change can take most of a second on a long history: only a fetch needs it.
    const fetches = (r?: LanguageRecipe): boolean => !!r && (!!r.fetch || fetches(r.fallback));
    const asOf = fetches(recipe) ? await manifestsDate(repoPath, pr.baseSha, recipe.manifests) : undefined;
    const keyed = (recipe: LanguageRecipe): Resolved => {
      const toolchain = this.toolchains.image(recipe.toolchain);
      const hash = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');
      const depsKey =
        recipe.fetch && asOf
          ? hash([
              recipe.origin,
              history,
              blobs,
              asOf.toISOString(),
              ...(recipe.fetchRevision ? [recipe.fetchRevision] : []),
              ...(recipe.prAdds ? [recipe.prAdds] : []),
              ...(recipe.toolchain.prefix ? [recipe.toolchain.version] : []),
            ]).slice(0, 24)
          : '';
      // The fallback and how a build says it needs it are not part of what this recipe builds.
      const key = hash([LAYOUT, toolchain, this.opts.network, { ...recipe, fallback: undefined, tooOld: undefined }, history, blobs, recipe.fetch ? depsKey : '']).slice(0, 16);
      const lineage = hash([LAYOUT, toolchain, this.opts.network, recipe.origin, history]).slice(0, 16);
      return {
        image: `${ENV_IMAGE}:${key}`, recipe, sha: pr.baseSha, repoPath, repoName: chain.repo.name, depsKey, asOf, lineage,
        ...(recipe.fallback ? { fallback: keyed(recipe.fallback) } : {}),
      };
    };
    return keyed(recipe);
  }

  private async ensure(r: Resolved): Promise<EnvironmentManifest> {
    const existing = await readManifest(this.docker, r.image);
    if (existing) return existing;
    // One build of an image, whoever asks: the durability bench counts a second one as work redone.
    return journaled('build', r.image, () => this.buildImage(r), { global: true });
  }

  private async buildImage(r: Resolved): Promise<EnvironmentManifest> {
    const start = Date.now();
    const { recipe } = r;
    const toolchain = await this.toolchains.ensure(recipe.toolchain, this.log);
    const deps: FetchedDependencies | undefined =
      recipe.fetch && r.asOf
        ? await this.deps.get({ repoName: r.repoName, repoPath: r.repoPath, sha: r.sha, recipe, key: r.depsKey, asOf: r.asOf, log: this.log })
      : undefined;
    await sweepOrphansOnce(this.docker);
    const seed = recipe.reuse ? await findSeed(this.docker, r.lineage, r.repoPath, r.sha, recipe.reuse) : undefined;
    this.log(`building the environment ${r.image} of ${r.repoName} (${recipe.origin}) on ${seed ? `${seed.image}, built at ${seed.builtAt.slice(0, 12)} (reusing ${recipe.reuse})` : toolchain}`);
    const sandbox = await DockerSandbox.create(this.docker, {
      image: seed?.image ?? toolchain,
      mirrorPath: r.repoPath,
      labels: { [BUILD_LABEL]: r.image, ...ownerLabel() },
      memoryMb: this.opts.memoryMb,
      pidsLimit: this.opts.pidsLimit,
      cpus: this.opts.cpus,
      network: this.opts.network,
      ...(deps ? { readOnlyMounts: { [deps.dir]: DEPS_MOUNT } } : {}),
    });
    try {
      const exportLines = [
        ...Object.entries(recipe.env).map(([k, v]) => `export ${k}=${quote(v)}`),
        ...(recipe.path.length ? [`export PATH=${recipe.path.join(':')}:$PATH`] : []),
      ];
      const script = [
        ...checkoutLines(r.sha),
        'export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1',
        ...exportLines,
        ...recipe.setup.flatMap((cmd) => [`echo ${quote(`$ ${cmd}`)}`, cmd]),
      ];
      const run = await sandbox.exec(`set -euo pipefail\n${script.join('\n')}`, {
        timeoutSeconds: this.opts.timeoutSeconds,
        maxOutputChars: 12_000,
        cwd: '/work',
      });
      if (run.exitCode !== 0) {
        const tooOld = recipe.tooOld?.exec(run.output);
        if (tooOld) throw new ToolchainTooOld(`the build at ${r.sha.slice(0, 12)} says: ${tooOld[0]}`);
        const why = run.timedOut ? `timed out after ${this.opts.timeoutSeconds}s` : `exit code ${run.exitCode}`;
        throw new StageError(
          `the environment recipe of ${r.repoName} (${recipe.origin}) failed to build at ${r.sha.slice(0, 12)} (${why}):\n${run.output.trim().slice(-4_000)}`,
        );
      }
      // Probed as the sandboxes will run it: with the recipe's variables and PATH (a Go toolchain module first on it, say).
      const probe = await sandbox.exec([...exportLines, TOOLCHAIN_PROBES[recipe.toolchain.image]].join('\n'), { timeoutSeconds: 60, maxOutputChars: 2_000, cwd: '/work' });
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
          version: probe.output.replace(/\x1b\[[0-9;]*m/g, '').trim().split('\n').join(' / '),
          ...(recipe.toolchain.version ? { wanted: recipe.toolchain.version } : {}),
          ...(recipe.toolchain.note ? { note: recipe.toolchain.note } : {}),
        },
        ...(deps ? { resolution: { ...deps.resolution, key: deps.key, fetchSeconds: deps.fetchSeconds } } : {}),
        ...(seed ? { seed } : {}),
        buildSeconds: Math.round((Date.now() - start) / 100) / 10,
        createdAt: new Date().toISOString(),
      };
      const env = Object.entries({ ...recipe.env, PATH: [...recipe.path, SYSTEM_PATH].join(':') }).map(([k, v]) => `ENV ${k}=${JSON.stringify(v)}`);
      await sandbox.container.commit({
        repo: ENV_IMAGE,
        tag: r.image.slice(ENV_IMAGE.length + 1),
        changes: [
          // The build container's PID 1 ran as root (docker-sandbox.ts); the image keeps the base's user and command.
          'USER agent',
          'CMD ["sleep", "infinity"]',
          ...env,
          `LABEL ${BUILD_LABEL}="" ${OWNER_LABEL}="" chainsmith.env.repo=${JSON.stringify(r.repoName)} chainsmith.env.recipe=${JSON.stringify(recipe.origin)} ${MANIFEST_LABEL}=${JSON.stringify(JSON.stringify(manifest))}`,
          ...(recipe.reuse ? [`LABEL ${LINEAGE_LABEL}=${r.lineage}`] : []),
        ],
      });
      this.log(`built ${r.image} in ${manifest.buildSeconds}s (${manifest.toolchain.version})`);
      return manifest;
    } catch (err) {
      if (err instanceof StageError) throw err;
      throw new TransientError(`cannot build the environment image ${r.image}: ${(err as Error).message}`, { cause: err });
    } finally {
      await sandbox.destroy();
    }
  }
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
