import Docker from 'dockerode';
import { TransientError } from '../errors';
import { objectsDir } from './host-repo';
import { REPO_DIR, type Sandbox } from './sandbox';
import { ShellSession, type ExecOptions, type ExecResult } from './shell-session';
import { shellQuote } from '../process/shell-quote';

/** Where a sandbox sees the host clone's object store (read-only): the only part of the clone it sees. */
export const MIRROR_OBJECTS = '/mirror/objects';
export const CONTAINER_LABEL = 'chainsmith.sandbox';
/** On a rollout round's sandbox started for it (its name, round-container.ts, is how it is found). */
export const KEY_LABEL = 'chainsmith.key';
export const HOST_LABEL = 'chainsmith.host';
/** The run a rollout sandbox belongs to, `workflowId/runId` as given: a worker asks Temporal whether it is still open. */
export const RUN_KEY_LABEL = 'chainsmith.run-key';
/**
 * The Temporal cluster and namespace that run key belongs to (`namespace@address`, as the worker is
 * configured): a sweep asks only its own cluster about a run, since another one's runs are unknown there.
 */
export const CLUSTER_LABEL = 'chainsmith.temporal';

/** The CLUSTER_LABEL value of a worker configured with this Temporal address and namespace. */
export function clusterOf(temporal: { address: string; namespace: string }): string {
  return `${temporal.namespace}@${temporal.address}`;
}

export type { ExecOptions, ExecResult } from './shell-session';

/**
 * A sandbox without network is created with networking disabled: the engine then skips its network
 * setup (a namespace it creates and mounts, a hook that runs dockerd's binary again at each start),
 * a third of a sandbox's create, start and removal CPU, while the runtime still gives the container a namespace
 * of its own with only loopback up. The engine then writes no /etc/hosts (the file it leaves is empty,
 * whatever the image holds), so PID 1 writes one as root before it sleeps; commands run as `agent`
 * (shell-session.ts), who cannot change it. Without it `localhost` would not resolve, nor the
 * container's own host name, which Docker's file and every machine's (Debian's 127.0.1.1) resolve: a
 * test that looks itself up (Java's InetAddress.getLocalHost(), commons-net's mock servers) failed with
 * UnknownHostException before and after a change alike.
 */
const WRITE_HOSTS = `printf '127.0.0.1\\tlocalhost\\n::1\\tlocalhost ip6-localhost ip6-loopback\\n127.0.1.1\\t%s\\n' "$(cat /proc/sys/kernel/hostname)" > /etc/hosts`;

/** How an offline container is started (for a sandbox, and for a benchmark's baseline started the same way). */
export const OFFLINE_START = {
  NetworkDisabled: true,
  User: '0:0',
  Cmd: ['sh', '-c', `${WRITE_HOSTS} && exec sleep infinity`],
};

export interface ContainerSpec {
  image: string;
  /** The container's name (a rollout round's, see round-container.ts); none: the engine picks one. */
  name?: string;
  /**
   * Host path of the repository. Only its object store is mounted (read-only): the repository inside
   * borrows those objects, and the clone's config, hooks and remotes (which may hold credentials) stay out.
   */
  mirrorPath: string;
  labels: Record<string, string>;
  memoryMb: number;
  pidsLimit: number;
  /** CPU limit; absent means one CPU. */
  cpus?: number;
  /** 'none' for every sandbox; only an environment build may be given the default network. */
  network?: 'none' | 'default';
  /** Host directories mounted read-only (an environment build's fetched dependencies), host path to container path. */
  readOnlyMounts?: Record<string, string>;
  /** Host directories mounted read-write (a build cache gold validation's sandboxes share), host path to container path. */
  cacheMounts?: Record<string, string>;
  /** Variables set on top of the image's (`NAME=value`). */
  env?: string[];
}

/**
 * The repository's working tree lives in memory (tmpfs, charged to the container's memory limit):
 * writing a few thousand files there takes milliseconds, where the container's overlay filesystem
 * takes most of a second. It also keeps a build's checkout out of the image it commits.
 */
function repoTmpfs(memoryMb: number): string {
  return `rw,exec,nosuid,nodev,uid=1000,gid=1000,mode=755,size=${memoryMb}m`;
}

/**
 * A container without network, capabilities or privilege escalation, with memory, CPU and process
 * limits; the agent runs as `agent`. Its environment is a fixed list: nothing of the worker's
 * environment (API keys, tokens) is passed in.
 */
export class DockerContainer implements Sandbox {
  /** Every command goes through one shell (see shell-session.ts), opened at the first command. */
  private shell?: Promise<ShellSession>;

  private constructor(
    private readonly docker: Docker,
    readonly container: Docker.Container,
  ) {}

  static async create(docker: Docker, spec: ContainerSpec): Promise<DockerContainer> {
    const objects = await objectsDir(spec.mirrorPath);
    const network = spec.network ?? 'none';
    try {
      const container = await docker.createContainer({
        ...(spec.name ? { name: spec.name } : {}),
        Image: spec.image,
        ...(network === 'none' ? OFFLINE_START : { Cmd: ['sleep', 'infinity'] }),
        // Nothing in a sandbox needs a graceful stop, and `sleep` as PID 1 ignores SIGTERM: a stop (or
        // dockerd shutting down) would wait out Docker's 10 s for each sandbox before killing it.
        StopSignal: 'SIGKILL',
        Labels: { [CONTAINER_LABEL]: '1', ...spec.labels },
        WorkingDir: '/work',
        Env: ['PYTHONDONTWRITEBYTECODE=1', 'LANG=C.UTF-8', 'HOME=/home/agent', ...(spec.env ?? [])],
        HostConfig: {
          NetworkMode: network,
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Memory: spec.memoryMb * 1024 * 1024,
          MemorySwap: spec.memoryMb * 1024 * 1024,
          PidsLimit: spec.pidsLimit,
          NanoCpus: Math.round((spec.cpus ?? 1) * 1e9),
          Binds: [
            `${objects}:${MIRROR_OBJECTS}:ro`,
            ...Object.entries(spec.readOnlyMounts ?? {}).map(([host, path]) => `${host}:${path}:ro`),
            ...Object.entries(spec.cacheMounts ?? {}).map(([host, path]) => `${host}:${path}:rw`),
          ],
          Tmpfs: { [REPO_DIR]: repoTmpfs(spec.memoryMb) },
        },
      });
      await container.start();
      return new DockerContainer(docker, container);
    } catch (cause) {
      throw new TransientError(`cannot start a sandbox from ${spec.image}: ${(cause as Error).message}`, { cause });
    }
  }

  /** Runs commands in a container started elsewhere (a retried round's survivor, a benchmark's baseline). */
  static attach(docker: Docker, container: Docker.Container): DockerContainer {
    return new DockerContainer(docker, container);
  }

  /** Runs `bash -c command` (with `input` as its standard input); a non-zero exit is a result, only a broken engine throws. */
  exec(command: string, opts: ExecOptions, input?: Buffer): Promise<ExecResult> {
    return this.run(command, opts, input);
  }

  /**
   * Writes a file as the agent user through the command's standard input (the archive API would
   * write beneath the repository's tmpfs, where nothing sees it); the parent directory is created first.
   */
  async tryWriteFile(path: string, content: string | Buffer, mode?: number): Promise<ExecResult> {
    const q = shellQuote(path);
    const dir = shellQuote(path.slice(0, path.lastIndexOf('/')) || '/');
    const chmod = mode === undefined ? '' : ` && chmod ${mode.toString(8)} -- ${q}`;
    return this.run(
      `mkdir -p -- ${dir} && cat > ${q}${chmod}`,
      { timeoutSeconds: 60, maxOutputChars: 2000, cwd: '/' },
      Buffer.from(content),
    );
  }

  /** As tryWriteFile, for the harness's own files: a failure is the sandbox's. */
  async writeFile(path: string, content: string | Buffer, mode?: number): Promise<void> {
    const r = await this.tryWriteFile(path, content, mode);
    if (r.exitCode !== 0) throw new TransientError(`cannot write ${path} in the sandbox: ${r.output.trim()}`);
  }

  private async run(command: string, opts: ExecOptions, input?: Buffer): Promise<ExecResult> {
    return (await this.openShell()).run(command, opts, input);
  }

  /** The sandbox's shell; one that died (killed by its command, or with the engine) is replaced. */
  private async openShell(): Promise<ShellSession> {
    this.shell ??= ShellSession.open(this.docker, this.container).catch((cause) => {
      this.shell = undefined;
      throw new TransientError(`cannot open a shell in the sandbox: ${(cause as Error).message}`, { cause });
    });
    const current = this.shell;
    const shell = await current;
    if (shell.alive) return shell;
    if (this.shell === current) this.shell = undefined;
    return this.openShell();
  }

  async destroy(): Promise<void> {
    this.shell?.then(
      (s) => s.close(),
      () => undefined,
    );
    await this.container.remove({ force: true }).catch(() => undefined);
  }
}

/** Removes sandboxes matching the labels, e.g. those a crashed worker left behind. */
export async function removeLabelledContainers(docker: Docker, labels: Record<string, string> = {}): Promise<number> {
  const filters = { label: [CONTAINER_LABEL, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] };
  const found = await docker.listContainers({ all: true, filters });
  await removeContainers(
    docker,
    found.map((c) => c.Id),
  );
  return found.length;
}

/** Force-removes containers; one already gone is not an error. */
export async function removeContainers(docker: Docker, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      docker
        .getContainer(id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}
