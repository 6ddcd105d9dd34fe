import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { StageError, TransientError } from '../errors';
import { stageReason } from '../stage-reason';
import type { LanguageRecipe, ToolchainName } from './contract';
import { hostPythons, prefixFingerprint, type HostPython } from './host-pythons';
import { imagesDir, toolchainImageTag, toolchainPackages } from './images';
import { inspectImage } from './manifest';
import { run } from '../process/run';

/** A toolchain as a recipe names it: by name, or with a host Python prefix (LanguageRecipe['toolchain']). */
type ToolchainSpec = ToolchainName | LanguageRecipe['toolchain'];

/** What each toolchain reports as its version, run in the image after a build (recorded on the manifest). */
export const TOOLCHAIN_PROBES: Record<ToolchainName, string> = {
  python: 'python3 --version',
  c: 'gcc --version | head -n 1; cmake --version | head -n 1; meson --version | sed "s/^/meson /"',
  node: 'echo "node $(node --version) npm $(npm --version)"',
  rust: 'rustc --version; cargo --version',
  'rust-web': 'rustc --version; cargo --version',
  go: 'go version',
  java: 'java -version 2>&1 | head -n 1; mvn -v 2>/dev/null | head -n 1',
};

export interface ToolchainOptions {
  /** The base image (the Python toolchain); a configured sandbox.image replaces the built one. */
  baseImage: string;
  /** Holds the debootstrap package cache and the lock that serialises builds on this host. */
  dataDir: string;
  /** CPython prefixes the user adds to those pyenv provides (environments.pythons). */
  pythons?: string[];
}

/**
 * Toolchain images, built on demand from images/toolchains/NAME (debootstrap + docker import, as the
 * base image is) when a stage needs one the engine lacks; a Python other than the image's is the
 * Python toolchain image plus a CPython prefix the host provides (images/host-python), tagged by that
 * prefix's build. Builds are serialised on the host with a lock file, so two workers never build at once and the second finds the first's image.
 */
export class Toolchains {
  private readonly builds = new Map<string, Promise<string>>();

  constructor(
    private readonly docker: Docker,
    private readonly opts: ToolchainOptions,
  ) {}

  /** The CPythons this host can put in a toolchain image (pyenv's and the configured prefixes). */
  pythons(): Promise<HostPython[]> {
    return hostPythons(this.opts.pythons);
  }

  image(spec: ToolchainSpec): string {
    const name = typeof spec === 'string' ? spec : spec.image;
    if (typeof spec !== 'string' && spec.prefix) return this.pythonTag(spec.prefix, spec.version);
    return toolchainPackages(name) ? toolchainImageTag(name) : this.opts.baseImage;
  }

  async ensure(spec: ToolchainSpec, log: (line: string) => void = () => undefined): Promise<string> {
    const tag = this.image(spec);
    if (await this.exists(tag)) return tag;
    if (typeof spec !== 'string' && spec.prefix) return this.once(tag, () => this.buildPython(tag, spec.prefix!, log));
    const name = typeof spec === 'string' ? spec : spec.image;
    const packages = toolchainPackages(name);
    if (!packages) throw new StageError(`the base image ${tag} is missing: run scripts/provision.sh image`, { reason: stageReason('unsupported', `the base image ${tag} is missing: run scripts/provision.sh image`) });
    return this.once(tag, () => this.build(tag, packages, log));
  }

  /** One build per tag in this process; concurrent callers share it. */
  private once(tag: string, build: () => Promise<string>): Promise<string> {
    let running = this.builds.get(tag);
    if (!running) {
      running = build();
      this.builds.set(tag, running);
      running.finally(() => this.builds.delete(tag)).catch(() => undefined);
    }
    return running;
  }

  /** A host Python's image tag: the image it is built on (the Python toolchain's), the recipe script, the prefix and its interpreter's build. */
  private pythonTag(prefix: string, minor = 'host'): string {
    const script = readFileSync(join(imagesDir(), 'host-python', 'build.sh'));
    const hash = createHash('sha256').update(JSON.stringify([this.image('python'), prefix, prefixFingerprint(prefix)])).update(script);
    return `chainsmith-toolchain:python${minor}-${hash.digest('hex').slice(0, 12)}`;
  }

  /** The Python toolchain image with a host Python's prefix copied in (images/host-python/build.sh), serialised with the other image builds. */
  private async buildPython(tag: string, prefix: string, log: (line: string) => void): Promise<string> {
    const base = await this.ensure('python', log);
    const locks = join(this.opts.dataDir, 'locks');
    mkdirSync(locks, { recursive: true });
    log(`building the toolchain image ${tag}: ${base} with the host's Python from ${prefix} (first time only)`);
    const script = `docker image inspect "$1" >/dev/null 2>&1 || bash "$2" "$3" "$1" "$4"`;
    const out = await buildUnderLock(join(locks, 'images.lock'), script, ['build', tag, join(imagesDir(), 'host-python', 'build.sh'), base, prefix]);
    if (out.code === 0) return tag;
    const why = out.output.trim().slice(-3000);
    // A missing library or an interpreter that does not run will not build on a retry either.
    if (/lacks libraries|does not run in the image/.test(why)) {
      const reason = stageReason('unsupported', `the toolchain image ${tag} cannot be built: the host's Python does not run in it`, { command: `bash images/host-python/build.sh ${base} ${tag} ${prefix}`, exitCode: out.code, output: why });
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
      throw cannot('debootstrap, flock or the docker CLI is not installed (apt-get install debootstrap util-linux docker.io)');
    }
    const locks = join(this.opts.dataDir, 'locks');
    mkdirSync(locks, { recursive: true });
    log(`building the toolchain image ${tag} from ${packages} (debootstrap; first time only, a few minutes)`);
    // Under the lock, another process may have built it meanwhile.
    const script = `docker image inspect "$1" >/dev/null 2>&1 || bash "$2" "$1" "$3"`;
    const out = await buildUnderLock(join(locks, 'images.lock'), script, ['build', tag, join(imagesDir(), 'base', 'build.sh'), packages], {
      CHAINSMITH_DEBOOTSTRAP_CACHE: join(this.opts.dataDir, 'cache', 'debootstrap'),
    });
    if (out.code !== 0) throw new TransientError(`building the toolchain image ${tag} failed:\n${out.output.trim().slice(-3000)}`);
    return tag;
  }

  private async exists(image: string): Promise<boolean> {
    return (await inspectImage(this.docker, image)) !== undefined;
  }
}

/** A build script's run under the host's image lock: its exit code (-1 where it did not start) and the end of what it printed, both streams in order. */
async function buildUnderLock(lock: string, script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  // One stream, so the lines of a failed build read in the order they were written.
  const r = await run('flock', [lock, 'bash', '-c', `exec 2>&1; ${script}`, ...args], { env, maxOutputBytes: 20_000 });
  return { code: r.exitCode ?? -1, output: `${r.stdout}${r.stderr}${r.startError?.message ?? ''}` };
}

const succeeds = (cmd: string, args: string[]) => run(cmd, args).then((r) => r.exitCode === 0);
