import type Docker from 'dockerode';
import { DockerSandbox, HOST_LABEL, removeContainers, type SandboxSpec } from './docker-sandbox';
import { ownerLabel } from './orphans';

/** On a warm container: the pool it waits in. Like a one-off container, it belongs to its worker process. */
export const POOL_LABEL = 'chainsmith.pool';
/** Kinds of sandbox (image, repository, limits) kept warm at once; the least recently used kind goes first. */
const MAX_KINDS = 4;

/** A sandbox as its pool knows it: the pool sets the labels. */
export type WarmSpec = Omit<SandboxSpec, 'labels'>;

interface Kind {
  spec: WarmSpec;
  idle: DockerSandbox[];
  filling?: Promise<void>;
}

/**
 * Warm sandboxes per kind (environment image, repository, limits): started, network-less and limited
 * exactly as a cold one, with their shell already open, so opening a stage is a checkout and a carry
 * in a running container. A kind is filled to `size` in the background once a stage of it is set up
 * (a first one started its own container), one container at a time (a worker's CPU is for its rollouts).
 *
 * Warm and taken pooled containers are owned by the worker process (ownerLabel): they end with their
 * stage, on `drain()` at shutdown, or, after a crash, in the sweep of dead workers' containers
 * (removeOrphans). A round that loses its pooled container with its worker is rebuilt from its checkpoint.
 */
export class SandboxPool {
  private readonly kinds = new Map<string, Kind>();
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly opts: { size: number; host: string; onError?: (err: Error) => void },
  ) {}

  get enabled(): boolean {
    return this.opts.size > 0 && !this.closed;
  }

  /** A warm sandbox of `spec`'s kind, or undefined (none ready). The taker calls refill() once its stage is set up. */
  take(spec: WarmSpec): DockerSandbox | undefined {
    return this.enabled ? this.use(spec).idle.shift() : undefined;
  }

  /**
   * Fills `spec`'s kind again in the background. Called after a stage is set up, not at the take: on
   * two cores, containers starting beside a setup (a miss's own start above all) slow it down.
   */
  refill(spec: WarmSpec): void {
    if (this.enabled) this.fill(this.use(spec));
  }

  /** The kind, made the most recently used (the first entry is the one to drop). */
  private use(spec: WarmSpec): Kind {
    const key = kindKey(spec);
    const kind = this.kinds.get(key) ?? { spec, idle: [] };
    this.kinds.delete(key);
    this.kinds.set(key, kind);
    if (this.kinds.size > MAX_KINDS) void this.dropKind(this.kinds.keys().next().value!);
    return kind;
  }

  /** How many sandboxes of `spec`'s kind are warm now. */
  idle(spec: WarmSpec): number {
    return this.kinds.get(kindKey(spec))?.idle.length ?? 0;
  }

  /** Resolves once `spec`'s kind is full (or its filling stopped on an error). */
  async filled(spec: WarmSpec): Promise<void> {
    await this.kinds.get(kindKey(spec))?.filling;
  }

  /** Stops filling and removes every warm container; for worker shutdown. */
  async drain(): Promise<number> {
    this.closed = true;
    const keys = [...this.kinds.keys()];
    const counts = await Promise.all(keys.map((key) => this.dropKind(key)));
    return counts.reduce((a, b) => a + b, 0);
  }

  private fill(kind: Kind): void {
    kind.filling ??= (async () => {
      try {
        while (this.enabled && this.kinds.get(kindKey(kind.spec)) === kind && kind.idle.length < this.opts.size) {
          const sandbox = await this.warm(kind.spec);
          // Drained or dropped while it started: it is nobody's.
          if (!this.enabled || this.kinds.get(kindKey(kind.spec)) !== kind) await sandbox.destroy();
          else kind.idle.push(sandbox);
        }
      } catch (err) {
        this.opts.onError?.(err as Error);
      } finally {
        kind.filling = undefined;
      }
    })();
  }

  private async warm(spec: WarmSpec): Promise<DockerSandbox> {
    const labels = { [POOL_LABEL]: '1', [HOST_LABEL]: this.opts.host, ...ownerLabel() };
    const sandbox = await DockerSandbox.create(this.docker, { ...spec, labels });
    try {
      await sandbox.exec('true', { timeoutSeconds: 30, maxOutputChars: 100 });
      return sandbox;
    } catch (err) {
      await sandbox.destroy();
      throw err;
    }
  }

  private async dropKind(key: string): Promise<number> {
    const kind = this.kinds.get(key);
    if (!kind) return 0;
    this.kinds.delete(key);
    await kind.filling;
    const ids = kind.idle.splice(0).map((s) => s.container.id);
    await removeContainers(this.docker, ids);
    return ids.length;
  }
}

/** What makes two sandboxes interchangeable: everything about them but their labels. */
function kindKey(spec: WarmSpec & { labels?: unknown }): string {
  const { labels: _labels, ...rest } = spec;
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
}
