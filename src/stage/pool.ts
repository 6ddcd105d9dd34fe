import type Docker from 'dockerode';
import { DockerContainer, HOST_LABEL, removeContainers, type ContainerSpec } from '../container/docker-container';
import { ownerLabel } from '../container/orphans';
import { nameHeld, type RoundSource } from './round-container';

/** On a warm container: the pool it waits in. Like a one-off container, it belongs to its worker process. */
export const POOL_LABEL = 'chainsmith.pool';
/** On a container prepared for a known round (the next stage of a chain being rolled out). */
export const PREPARED_LABEL = 'chainsmith.prepared';
/** Kinds of sandbox (image, repository, limits) kept warm at once; the least recently used kind goes first. */
const MAX_KINDS = 4;
/**
 * A prepared container older than this makes room for a new one; younger ones are kept (a new one is
 * not prepared): removing one whose round is about to open would waste its start and its checkout.
 */
const PREPARED_STALE_MS = 15 * 60_000;

/** A sandbox as its pool knows it: the pool sets the labels, a round the name. */
export type WarmSpec = Omit<ContainerSpec, 'labels' | 'name'>;

interface Kind {
  spec: WarmSpec;
  idle: DockerContainer[];
  /** Rounds of this kind that asked for a warm container (a prepared one aside): the demand that sizes it. */
  asked: number;
  filling?: Promise<void>;
}

interface Prepared {
  at: number;
  /** The container, set up, and its kind; undefined when its preparation failed or was not wanted. */
  ready: Promise<{ sandbox: DockerContainer; spec: WarmSpec } | undefined>;
}

/**
 * Warm sandboxes per kind (environment image, repository, limits): started, network-less and limited
 * exactly as a cold one, with their shell already open, so opening a stage is a checkout and a carry
 * in a running container. A kind is kept warm by demand: after the n-th round of it that asked for a
 * warm container is set up, it is filled to min(n − 1, `size`) in the background, one container at a
 * time (a worker's CPU is for its rollouts). A kind asked for once (one chain of a repository, whose
 * later stages get prepared containers) keeps nothing warm: a container per kind started for nobody
 * was most of what a pool cost a worker that rolls out a chain or two.
 *
 * A round that takes a warm container renames it to the round's name (round-container.ts): the chain's
 * cleanup finds it by that name, as it finds a container started for the round.
 *
 * Besides, a container can be prepared for a known round (prepare(): the next stage of a chain being
 * rolled out), created under that round's name and set up ahead (its base checked out), one at a time
 * in the background and at most `size` at once (more wait for none: a stale one goes); that round takes it.
 *
 * Warm, prepared and taken pooled containers are owned by the worker process (ownerLabel): they end
 * with their stage, on `drain()` at shutdown, through the chain's cleanup (by name), or, after a
 * crash, in the sweep of dead workers' containers (removeOrphans). A round that loses its pooled
 * container with its worker is rebuilt from its checkpoint.
 */
export class ContainerPool implements RoundSource {
  private readonly kinds = new Map<string, Kind>();
  private readonly prepared = new Map<string, Prepared>();
  /** Prepared containers being removed, by round name: their round waits for that before it starts its own. */
  private readonly dropping = new Map<string, Promise<number>>();
  /** Preparations run one after another, after what is under way. */
  private preparing: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly opts: { size: number; host: string; onError?: (err: Error) => void },
  ) {}

  get enabled(): boolean {
    return this.opts.size > 0 && !this.closed;
  }

  /**
   * The container prepared for the round `name` (awaited if its preparation is under way), else a warm
   * one of `spec`'s kind renamed to `name`, else undefined. A rename refused because a container holds
   * the name already (409) throws, and the warm one stays in the pool. The taker calls refill() once
   * its stage is set up.
   */
  async take(spec: WarmSpec, name: string): Promise<{ sandbox: DockerContainer; prepared: boolean } | undefined> {
    if (!this.enabled) return undefined;
    await this.dropping.get(name);
    const ahead = this.prepared.get(name);
    if (ahead) {
      this.prepared.delete(name);
      const ready = await ahead.ready;
      if (ready && kindKey(ready.spec) === kindKey(spec)) return { sandbox: ready.sandbox, prepared: true };
      await ready?.sandbox.destroy();
    }
    const kind = this.use(spec);
    kind.asked++;
    const warm = kind.idle.shift();
    if (!warm) return undefined;
    try {
      await warm.container.rename({ name });
    } catch (err) {
      const held = nameHeld(err);
      if (held && this.kinds.get(kindKey(spec)) === kind && this.enabled) kind.idle.unshift(warm);
      else await warm.destroy();
      // A warm container that cannot be renamed otherwise (gone, say) is no reason to fail the round.
      if (held) throw err;
      return undefined;
    }
    return { sandbox: warm, prepared: false };
  }

  /**
   * Prepares a container for the round `name` in the background: of the kind `kind()` says (none: not
   * now), created under that name and set up by `setup`. Ignored if the pool is off, has it already,
   * or holds `size` prepared containers none of which is stale. Registered at once, so that a
   * dropPrepared() from now on also stops a preparation that has not started.
   */
  prepare(
    name: string,
    kind: () => Promise<WarmSpec | undefined>,
    setup: (sandbox: DockerContainer) => Promise<void>,
  ): void {
    if (!this.enabled || this.prepared.has(name)) return;
    const now = Date.now();
    for (const [old, { at }] of this.prepared)
      if (this.prepared.size >= this.opts.size && now - at > PREPARED_STALE_MS) void this.dropPrepared(old);
    if (this.prepared.size >= this.opts.size) return;
    const entry: Prepared = { at: now, ready: Promise.resolve(undefined) };
    const wanted = () => this.enabled && this.prepared.get(name) === entry;
    entry.ready = this.preparing
      .then(async () => {
        const spec = wanted() ? await kind() : undefined;
        if (!spec || !wanted()) return undefined;
        const labels = { [POOL_LABEL]: '1', [PREPARED_LABEL]: '1', [HOST_LABEL]: this.opts.host, ...ownerLabel() };
        const sandbox = await DockerContainer.create(this.docker, { ...spec, name, labels });
        try {
          await setup(sandbox);
          return { sandbox, spec };
        } catch (err) {
          await sandbox.destroy();
          throw err;
        }
      })
      .catch((err) => {
        // A name already held: that round has its container (a survivor); nothing to prepare.
        if (!nameHeld(err)) this.opts.onError?.(err as Error);
        return undefined;
      });
    this.prepared.set(name, entry);
    this.preparing = entry.ready;
  }

  /** Resolves once the container prepared for `name` (if any) is set up, or its preparation failed. */
  async preparedFor(name: string): Promise<boolean> {
    return (await this.prepared.get(name)?.ready) !== undefined;
  }

  /**
   * Fills `spec`'s kind again in the background, as far as its demand goes (see the class). Called
   * after a stage is set up, not at the take: on two cores, containers starting beside a setup (a
   * miss's own start above all) slow it down.
   */
  refill(spec: WarmSpec): void {
    if (this.enabled) this.fill(this.use(spec));
  }

  /** The kind, made the most recently used (the first entry is the one to drop). */
  private use(spec: WarmSpec): Kind {
    const key = kindKey(spec);
    const kind = this.kinds.get(key) ?? { spec, idle: [], asked: 0 };
    this.kinds.delete(key);
    this.kinds.set(key, kind);
    if (this.kinds.size > MAX_KINDS) void this.dropKind(this.kinds.keys().next().value!);
    return kind;
  }

  /** How many sandboxes of `spec`'s kind are warm now. */
  idle(spec: WarmSpec): number {
    return this.kinds.get(kindKey(spec))?.idle.length ?? 0;
  }

  /** Resolves once `spec`'s kind is as warm as its demand asks (or its filling stopped on an error). */
  async filled(spec: WarmSpec): Promise<void> {
    await this.kinds.get(kindKey(spec))?.filling;
  }

  /** Stops filling and preparing and removes every warm and prepared container; for worker shutdown. */
  async drain(): Promise<number> {
    this.closed = true;
    const keys = [...this.kinds.keys()];
    const counts = await Promise.all([
      ...keys.map((key) => this.dropKind(key)),
      ...[...this.prepared.keys()].map((name) => this.dropPrepared(name)),
    ]);
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Drops the prepared containers whose round names match (a run's, when its chain ends); how many there were. */
  async dropPreparedWhere(match: (name: string) => boolean): Promise<number> {
    const counts = await Promise.all([...this.prepared.keys()].filter(match).map((name) => this.dropPrepared(name)));
    return counts.reduce((a, b) => a + b, 0);
  }

  /** Removes the container prepared for the round `name` (a cancelled chain's next stage), once its preparation is over. */
  dropPrepared(name: string): Promise<number> {
    const entry = this.prepared.get(name);
    if (!entry) return this.dropping.get(name) ?? Promise.resolve(0);
    this.prepared.delete(name);
    const done = entry.ready.then(async (ready) => {
      await ready?.sandbox.destroy();
      return ready ? 1 : 0;
    });
    this.dropping.set(name, done);
    void done.finally(() => this.dropping.delete(name));
    return done;
  }

  /** Whether `kind` is still this pool's and short of what its demand asks (see the class). */
  private short(kind: Kind): boolean {
    return (
      this.enabled &&
      this.kinds.get(kindKey(kind.spec)) === kind &&
      kind.idle.length < Math.min(kind.asked - 1, this.opts.size)
    );
  }

  private fill(kind: Kind): void {
    // Checked first: a filling that started nothing would end before it is recorded, and stay recorded.
    if (kind.filling || !this.short(kind)) return;
    kind.filling = (async () => {
      try {
        while (this.short(kind)) {
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

  private async warm(spec: WarmSpec): Promise<DockerContainer> {
    const labels = { [POOL_LABEL]: '1', [HOST_LABEL]: this.opts.host, ...ownerLabel() };
    const sandbox = await DockerContainer.create(this.docker, { ...spec, labels });
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
function kindKey(spec: WarmSpec & { labels?: unknown; name?: unknown }): string {
  const { labels: _labels, name: _name, ...rest } = spec;
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b)));
}
