import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { StageError, TransientError } from '../errors';
import { stageReason } from '../stage-reason';
import { imagesDir, toolchainImageTag, toolchainPackages } from './images';
import { toolchainLanguage, type Recipe, type ToolchainName } from './languages';
import { inspectImage } from './manifest';
import { run } from '../process/run';
import { sharedWhileRunning } from '../shared-promise';

/** A toolchain as a recipe names it: by name, or with a host installation's prefix (Recipe['toolchain']). */
type ToolchainSpec = ToolchainName | Recipe['toolchain'];

export interface ToolchainOptions {
  /** The base image (the base language's toolchain, Python's); a configured sandbox.image replaces the built one. */
  baseImage: string;
  /** Holds the debootstrap package cache and the lock that serialises builds on this host. */
  dataDir: string;
}

/**
 * Toolchain images, built on demand from images/toolchains/NAME (debootstrap + docker import, as the
 * base image is, then its configure.sh: images/toolchain.sh) when a stage needs one the engine lacks; a
 * recipe with a host prefix (a Python other than the image's) gets the toolchain image plus that installation, built by its language's
 * `hostToolchain` recipe (images/host-python) and tagged by the prefix's build. Builds are serialised on the host with a lock file, so two workers never build at once and the second finds the first's image.
 */
export class Toolchains {
  private readonly builds = new Map<string, Promise<string>>();

  constructor(
    private readonly docker: Docker,
    private readonly opts: ToolchainOptions,
  ) {}

  image(spec: ToolchainSpec): string {
    const name = typeof spec === 'string' ? spec : spec.image;
    if (typeof spec !== 'string' && spec.prefix) return this.hostTag(spec.image, spec.prefix, spec.version);
    return toolchainPackages(name) ? toolchainImageTag(name) : this.opts.baseImage;
  }

  async ensure(spec: ToolchainSpec, log: (line: string) => void = () => undefined): Promise<string> {
    const tag = this.image(spec);
    if (await this.exists(tag)) return tag;
    if (typeof spec !== 'string' && spec.prefix)
      return this.once(tag, () => this.buildOnHost(tag, spec.image, spec.prefix!, log));
    const name = typeof spec === 'string' ? spec : spec.image;
    const packages = toolchainPackages(name);
    if (!packages)
      throw new StageError(`the base image ${tag} is missing: run scripts/provision.sh image`, {
        reason: stageReason('unsupported', `the base image ${tag} is missing: run scripts/provision.sh image`),
      });
    return this.once(tag, () => this.build(tag, packages, log));
  }

  /** One build per tag in this process; concurrent callers share it. */
  private once(tag: string, build: () => Promise<string>): Promise<string> {
    return sharedWhileRunning(this.builds, tag, build);
  }

  /** The language's recipe for images with a host installation in them. */
  private hostRecipe(name: ToolchainName): NonNullable<ReturnType<typeof toolchainLanguage>['hostToolchain']> {
    const recipe = toolchainLanguage(name).hostToolchain;
    if (!recipe) throw new Error(`the ${name} toolchain takes no installation from the host`);
    return recipe;
  }

  /** A host installation's image tag: the image it is built on (its toolchain's), the recipe script, the prefix and its build. */
  private hostTag(name: ToolchainName, prefix: string, minor = 'host'): string {
    const recipe = this.hostRecipe(name);
    const script = readFileSync(join(imagesDir(), recipe.recipe, 'build.sh'));
    const hash = createHash('sha256')
      .update(JSON.stringify([this.image(name), prefix, recipe.fingerprint(prefix)]))
      .update(script);
    return `chainsmith-toolchain:${name}${minor}-${hash.digest('hex').slice(0, 12)}`;
  }

  /** The toolchain image with a host installation's prefix copied in (images/RECIPE/build.sh), serialised with the other image builds. */
  private async buildOnHost(
    tag: string,
    name: ToolchainName,
    prefix: string,
    log: (line: string) => void,
  ): Promise<string> {
    const recipe = this.hostRecipe(name);
    const title = toolchainLanguage(name).title;
    const base = await this.ensure(name, log);
    const locks = join(this.opts.dataDir, 'locks');
    mkdirSync(locks, { recursive: true });
    log(`building the toolchain image ${tag}: ${base} with the host's ${title} from ${prefix} (first time only)`);
    const script = `docker image inspect "$1" >/dev/null 2>&1 || bash "$2" "$3" "$1" "$4"`;
    const out = await buildUnderLock(join(locks, 'images.lock'), script, [
      'build',
      tag,
      join(imagesDir(), recipe.recipe, 'build.sh'),
      base,
      prefix,
    ]);
    if (out.code === 0) return tag;
    const why = out.output.trim().slice(-3000);
    // A missing library or an installation that does not run will not build on a retry either.
    if (recipe.unrunnable.test(why)) {
      const reason = stageReason(
        'unsupported',
        `the toolchain image ${tag} cannot be built: the host's ${title} does not run in it`,
        { command: `bash images/${recipe.recipe}/build.sh ${base} ${tag} ${prefix}`, exitCode: out.code, output: why },
      );
      throw new StageError(`the toolchain image ${tag} cannot be built:\n${why}`, { reason });
    }
    throw new TransientError(`building the toolchain image ${tag} failed:\n${why}`);
  }

  private async build(tag: string, packages: string, log: (line: string) => void): Promise<string> {
    const cannot = (why: string) => {
      const message = `the toolchain image ${tag} is missing and cannot be built here: ${why}; build it with \`scripts/provision.sh toolchains\` as root`;
      return new StageError(message, { reason: stageReason('unsupported', message) });
    };
    if (process.getuid?.() !== 0) throw cannot('building it (debootstrap, chroot) needs root');
    if (!(await succeeds('sh', ['-c', 'command -v debootstrap && command -v flock && command -v docker']))) {
      throw cannot(
        'debootstrap, flock or the docker CLI is not installed (apt-get install debootstrap util-linux docker.io)',
      );
    }
    const locks = join(this.opts.dataDir, 'locks');
    mkdirSync(locks, { recursive: true });
    log(`building the toolchain image ${tag} from ${packages} (debootstrap; first time only, a few minutes)`);
    // Under the lock, another process may have built it meanwhile.
    const script = `docker image inspect "$1" >/dev/null 2>&1 || bash "$2" "$1" "$3"`;
    const out = await buildUnderLock(
      join(locks, 'images.lock'),
      script,
      ['build', tag, join(imagesDir(), 'toolchain.sh'), dirname(packages)],
      {
        CHAINSMITH_DEBOOTSTRAP_CACHE: join(this.opts.dataDir, 'cache', 'debootstrap'),
      },
    );
    if (out.code !== 0)
      throw new TransientError(`building the toolchain image ${tag} failed:\n${out.output.trim().slice(-3000)}`);
    return tag;
  }

  private async exists(image: string): Promise<boolean> {
    return (await inspectImage(this.docker, image)) !== undefined;
  }
}

/** A build script's run under the host's image lock: its exit code (-1 where it did not start) and the end of what it printed, both streams in order. */
async function buildUnderLock(
  lock: string,
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  // One stream, so the lines of a failed build read in the order they were written.
  const r = await run('flock', [lock, 'bash', '-c', `exec 2>&1; ${script}`, ...args], { env, maxOutputBytes: 20_000 });
  return { code: r.exitCode ?? -1, output: `${r.stdout}${r.stderr}${r.startError?.message ?? ''}` };
}

const succeeds = (cmd: string, args: string[]) => run(cmd, args).then((r) => r.exitCode === 0);
