import Docker from 'dockerode';
import { PassThrough } from 'node:stream';
import { pack } from 'tar-stream';
import { TransientError } from '../errors';
import { objectsDir } from './host-repo';
import { CappedOutput } from './output';

export const REPO_DIR = '/work/repo';
/** Where a sandbox sees the host clone's object store (read-only): the only part of the clone it sees. */
export const MIRROR_OBJECTS = '/mirror/objects';
export const SANDBOX_LABEL = 'chainsmith.sandbox';
/** Identifies the one sandbox of a (run, stage, round): a retried round finds it again. */
export const KEY_LABEL = 'chainsmith.key';
export const RUN_LABEL = 'chainsmith.run';
export const HOST_LABEL = 'chainsmith.host';

export interface ExecResult {
  output: string;
  exitCode: number;
  timedOut: boolean;
}

export interface ExecOptions {
  timeoutSeconds: number;
  maxOutputChars: number;
  cwd?: string;
}

export interface SandboxSpec {
  image: string;
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
}

/**
 * A container without network, capabilities or privilege escalation, with memory, CPU and process
 * limits; the agent runs as `agent`. Its environment is a fixed list: nothing of the worker's
 * environment (API keys, tokens) is passed in.
 */
export class DockerSandbox {
  private constructor(
    private readonly docker: Docker,
    readonly container: Docker.Container,
  ) {}

  static async create(docker: Docker, spec: SandboxSpec): Promise<DockerSandbox> {
    const objects = await objectsDir(spec.mirrorPath);
    try {
      const container = await docker.createContainer({
        Image: spec.image,
        Cmd: ['sleep', 'infinity'],
        Labels: { [SANDBOX_LABEL]: '1', ...spec.labels },
        WorkingDir: '/work',
        Env: ['PYTHONDONTWRITEBYTECODE=1', 'LANG=C.UTF-8', 'HOME=/home/agent'],
        HostConfig: {
          NetworkMode: spec.network ?? 'none',
          CapDrop: ['ALL'],
          SecurityOpt: ['no-new-privileges'],
          Memory: spec.memoryMb * 1024 * 1024,
          MemorySwap: spec.memoryMb * 1024 * 1024,
          PidsLimit: spec.pidsLimit,
          NanoCpus: Math.round((spec.cpus ?? 1) * 1e9),
          Binds: [`${objects}:${MIRROR_OBJECTS}:ro`],
        },
      });
      await container.start();
      return new DockerSandbox(docker, container);
    } catch (cause) {
      throw new TransientError(`cannot start a sandbox from ${spec.image}: ${(cause as Error).message}`, { cause });
    }
  }

  /**
   * The running sandbox labelled `key` if one survived (a worker killed mid-round leaves it running),
   * else a new one. A stopped leftover (e.g. after a Docker restart) is removed first.
   */
  static async reuseOrCreate(docker: Docker, spec: SandboxSpec, key: string): Promise<{ sandbox: DockerSandbox; reused: boolean }> {
    const found = await docker.listContainers({ all: true, filters: { label: [`${KEY_LABEL}=${key}`] } }).catch(() => []);
    const running = found.find((c) => c.State === 'running');
    for (const c of found) if (c !== running) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
    if (running) return { sandbox: new DockerSandbox(docker, docker.getContainer(running.Id)), reused: true };
    const sandbox = await DockerSandbox.create(docker, { ...spec, labels: { ...spec.labels, [KEY_LABEL]: key } });
    return { sandbox, reused: false };
  }

  /** Runs `bash -c command`; a non-zero exit is a result, only a broken engine throws. */
  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const cmd = ['timeout', '-k', '5', `${opts.timeoutSeconds}s`, 'bash', '-c', command];
    const exec = await this.container.exec({
      Cmd: cmd,
      AttachStdout: true,
      AttachStderr: true,
      WorkingDir: opts.cwd ?? REPO_DIR,
    });
    const stream = await exec.start({ hijack: true, stdin: false });
    const out = new CappedOutput(opts.maxOutputChars);
    const sink = new PassThrough();
    sink.setEncoding('utf8');
    sink.on('data', (chunk: string) => out.push(chunk));
    this.docker.modem.demuxStream(stream, sink, sink);
    await new Promise<void>((resolve, reject) => {
      const guard = setTimeout(
        () => reject(new TransientError(`exec did not return ${opts.timeoutSeconds + 30}s after its timeout`)),
        (opts.timeoutSeconds + 30) * 1000,
      );
      stream.on('end', () => (clearTimeout(guard), resolve()));
      stream.on('error', (err) => (clearTimeout(guard), reject(new TransientError(`exec stream failed: ${err.message}`, { cause: err }))));
    });
    const { ExitCode } = await exec.inspect();
    const exitCode = ExitCode ?? -1;
    return { output: out.text(), exitCode, timedOut: exitCode === 124 || exitCode === 137 };
  }

  /** Writes a file as the agent user; the parent directory is created first. */
  async writeFile(path: string, content: string | Buffer, mode = 0o644): Promise<void> {
    const dir = path.slice(0, path.lastIndexOf('/')) || '/';
    const mk = await this.exec(`mkdir -p -- '${dir.replace(/'/g, `'\\''`)}'`, { timeoutSeconds: 10, maxOutputChars: 2000, cwd: '/' });
    if (mk.exitCode !== 0) throw new TransientError(`cannot create ${dir}: ${mk.output}`);
    const tar = pack();
    tar.entry({ name: path.slice(dir.length + 1), mode, uid: 1000, gid: 1000 }, Buffer.from(content));
    tar.finalize();
    await this.container.putArchive(tar as unknown as NodeJS.ReadableStream, { path: dir });
  }

  async destroy(): Promise<void> {
    await this.container.remove({ force: true }).catch(() => undefined);
  }
}

/** Removes sandboxes matching the labels, e.g. those a crashed worker left behind. */
export async function removeSandboxes(docker: Docker, labels: Record<string, string> = {}): Promise<number> {
  const filters = { label: [SANDBOX_LABEL, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] };
  const found = await docker.listContainers({ all: true, filters });
  await Promise.all(found.map((c) => docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
  return found.length;
}
