import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { StageError, TransientError } from '../errors';
import type { Chain } from '../schemas';
import { checkoutLines } from './checkout';
import { detectRecipe } from './detect-recipe';
import { DockerSandbox } from './docker-sandbox';
import { hasCommit, manifestBlobs, rootCommit, rootLayout } from './host-repo';
import { OWNER_LABEL, ownerLabel, sweepOrphansOnce } from './orphans';
import { recipeFromConfig, type Recipe, type RecipeOverride } from './recipe';

/** Environment images are tagged `chainsmith-env:<key>`. */
export const ENV_IMAGE = 'chainsmith-env';
/** On a build container, the image it builds; emptied on the image (as the owner is) so sandboxes started from it do not carry it. */
export const BUILD_LABEL = 'chainsmith.build';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Part of every image key: a change to how images are built must not reuse images built the old way. */
const LAYOUT = 2;

export interface Environment {
  image: string;
  recipe: Recipe;
  testCommand: string;
  /** The repository's language as its recipe says ('python', 'node', …; 'unknown' for a plain or configured one). */
  language: string;
}

export interface EnvironmentOptions {
  baseImage: string;
  /** Recipes by repository name; the others are detected. */
  overrides: Record<string, RecipeOverride>;
  network: 'none' | 'default';
  timeoutSeconds: number;
  memoryMb: number;
  pidsLimit: number;
  cpus: number;
  /** The test command of a recipe that names none. */
  defaultTestCommand: string;
}

/**
 * Per-repository environments. A stage's recipe comes from the config or from the repository's
 * layout at the stage's base; it is run once, offline unless configured otherwise, in a container
 * from the base image with the repository checked out, and the container is committed as an image
 * holding what the recipe installed outside the working tree (a virtualenv, node_modules moved up a
 * directory). Every stage whose repository, recipe and dependency manifests are the same starts from
 * that image and only checks out its commit.
 */
export class Environments {
  /** Builds under way, and recipes that failed (they stay failed for this process). */
  private readonly builds = new Map<string, Promise<void>>();
  /** Recipe and image per repository and base: every round of a stage asks again. */
  private readonly known = new Map<string, Promise<Environment & { sha: string }>>();

  constructor(
    private readonly docker: Docker,
    private readonly opts: EnvironmentOptions,
  ) {}

  async forStage(chain: Chain, stage: number): Promise<Environment> {
    const key = `${chain.repo.name}\0${chain.repo.path}\0${chain.prs[stage].baseSha}`;
    let known = this.known.get(key);
    if (!known) {
      known = this.resolve(chain, stage);
      this.known.set(key, known);
      known.catch(() => this.known.delete(key));
    }
    const { sha, ...env } = await known;
    // Asked every time (one engine request): an image removed meanwhile is built again.
    let build = this.builds.get(env.image);
    if (!build) {
      build = this.ensure(env.image, env.recipe, chain, sha);
      this.builds.set(env.image, build);
      build.then(
        () => this.builds.delete(env.image),
        (err) => err instanceof StageError || this.builds.delete(env.image),
      );
    }
    await build;
    return env;
  }

  private async resolve(chain: Chain, stage: number): Promise<Environment & { sha: string }> {
    const repoPath = chain.repo.path;
    const pr = chain.prs[stage];
    const layout = await rootLayout(repoPath, pr.baseSha).catch(async (err) => {
      if (await hasCommit(repoPath, pr.baseSha)) throw err;
      throw new StageError(`the base commit ${pr.baseSha} of PR #${pr.number} does not exist in ${repoPath}`);
    });
    const override = this.opts.overrides[chain.repo.name];
    const recipe = override ? recipeFromConfig(override) : detectRecipe(layout, { online: this.opts.network !== 'none' });
    // Clones of one history share its root commit; the manifests' blob ids change exactly when the dependencies may.
    const key = createHash('sha256')
      .update(JSON.stringify([LAYOUT, this.opts.baseImage, this.opts.network, recipe, await rootCommit(repoPath, pr.baseSha), await manifestBlobs(repoPath, pr.baseSha, recipe.manifests, layout.entries)]))
      .digest('hex')
      .slice(0, 16);
    const language = /^(python|node)-/.exec(recipe.origin)?.[1] ?? 'unknown';
    return { image: `${ENV_IMAGE}:${key}`, recipe, testCommand: recipe.test ?? this.opts.defaultTestCommand, language, sha: pr.baseSha };
  }

  private async ensure(image: string, recipe: Recipe, chain: Chain, sha: string): Promise<void> {
    if (await this.exists(image)) return;
    await sweepOrphansOnce(this.docker);
    const sandbox = await DockerSandbox.create(this.docker, {
      image: this.opts.baseImage,
      mirrorPath: chain.repo.path,
      labels: { [BUILD_LABEL]: image, ...ownerLabel() },
      memoryMb: this.opts.memoryMb,
      pidsLimit: this.opts.pidsLimit,
      cpus: this.opts.cpus,
      network: this.opts.network,
    });
    try {
      const script = [
        ...checkoutLines(sha),
        'export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1',
        ...(recipe.path.length ? [`export PATH=${recipe.path.join(':')}:$PATH`] : []),
        ...recipe.setup.flatMap((cmd) => [`echo ${quote(`$ ${cmd}`)}`, cmd]),
      ];
      const run = await sandbox.exec(`set -euo pipefail\n${script.join('\n')}`, {
        timeoutSeconds: this.opts.timeoutSeconds,
        maxOutputChars: 12_000,
        cwd: '/work',
      });
      if (run.exitCode !== 0) {
        const why = run.timedOut ? `timed out after ${this.opts.timeoutSeconds}s` : `exit code ${run.exitCode}`;
        throw new StageError(
          `the environment recipe of ${chain.repo.name} (${recipe.origin}) failed to build at ${sha.slice(0, 12)} (${why}):\n${run.output.trim().slice(-4_000)}`,
        );
      }
      await sandbox.container.commit({
        repo: ENV_IMAGE,
        tag: image.slice(ENV_IMAGE.length + 1),
        changes: [
          `ENV PATH=${[...recipe.path, SYSTEM_PATH].join(':')}`,
          `LABEL ${BUILD_LABEL}="" ${OWNER_LABEL}="" chainsmith.env.repo=${JSON.stringify(chain.repo.name)} chainsmith.env.recipe=${JSON.stringify(recipe.origin)}`,
        ],
      });
    } catch (err) {
      if (err instanceof StageError) throw err;
      throw new TransientError(`cannot build the environment image ${image}: ${(err as Error).message}`, { cause: err });
    } finally {
      await sandbox.destroy();
    }
  }

  private async exists(image: string): Promise<boolean> {
    return this.docker
      .getImage(image)
      .inspect()
      .then(
        () => true,
        () => false,
      );
  }
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
