import type Docker from 'dockerode';
import { readFile } from 'node:fs/promises';
import { OWNER_LABEL } from '../../src/container/orphans';
import { BUILD_LABEL } from '../../src/environments/builder';
import { containerEvents, type ContainerEvent, type EventStream } from '../support/container-events';

/** Where cgroup v1 (cgroupfs driver) keeps a container's CPU time, in nanoseconds; under v2, where the unified hierarchy does. */
const CGROUP_USAGE = [
  (id: string) => `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`,
  (id: string) => `/sys/fs/cgroup/docker/${id}/cpu.stat`,
];

/** How often a live container's cgroup is read: the CPU of its last interval (and of a container that lives less) is missed. */
const READ_MS = 100;

/** One container a process owned, as the engine's event stream told of it. */
export interface OwnedContainer {
  id: string;
  /** The image it builds (BUILD_LABEL), for an environment build; undefined for a sandbox. */
  build?: string;
  /** The highest CPU seconds its cgroup showed; undefined where it was never read (gone before the first read). */
  cpu?: number;
  /** Start and death, in seconds since the epoch (the engine's clock). */
  startedAt: number;
  diedAt?: number;
  /** Its cgroup is gone (read after its death found none): nothing more to read. */
  done: boolean;
}

/**
 * Every container started with one owner label (`chainsmith.owner=host:pid`), from Docker's event
 * stream (replayed from `since`, so none started before the watch is lost), and the CPU of each read
 * from its cgroup every READ_MS while it lives. A container is counted however briefly it lives: a
 * listing of the engine's containers at intervals misses those that start and go between two listings,
 * so that the count (and the CPU) moved with how slowly they ran, that is, with the machine's load.
 */
export class OwnedContainers {
  readonly containers = new Map<string, OwnedContainer>();
  private stream?: EventStream;
  private timer?: NodeJS.Timeout;
  private failure?: Error;
  private stopped = false;

  constructor(private readonly docker: Docker) {}

  /** `owner`: the label's value; `since`: seconds since the epoch, at or before the owner's first container. */
  async start(owner: string, since: number): Promise<void> {
    this.stream = await containerEvents(
      this.docker,
      { events: ['start', 'die'], labels: [`${OWNER_LABEL}=${owner}`], since },
      (event) => this.record(event),
    );
    const lost = (why: string) => {
      if (!this.stopped) this.failure ??= new Error(`Docker's event stream ${why} while containers were counted`);
    };
    this.stream.on('error', (err: Error) => lost(`failed (${err.message})`));
    this.stream.on('end', () => lost('ended'));
    this.timer = setInterval(() => void this.read(), READ_MS);
  }

  /** A last read of what may still be there; throws where the event stream was lost (the counts would be short). */
  async stop(): Promise<void> {
    // Docker delivers an event a moment after it happens.
    await new Promise((r) => setTimeout(r, 300));
    this.stopped = true;
    clearInterval(this.timer);
    await this.read();
    this.stream?.destroy?.();
    if (this.failure) throw this.failure;
  }

  private record(event: ContainerEvent): void {
    const action = event.Action ?? event.status;
    const at = (event.timeNano ?? Date.now() * 1e6) / 1e9;
    if (action === 'start') {
      const build = event.Actor?.Attributes?.[BUILD_LABEL] || undefined;
      // A container started again (a restart) is the same container: its cgroup's count goes on.
      if (!this.containers.has(event.id))
        this.containers.set(event.id, { id: event.id, build, startedAt: at, done: false });
      else this.containers.get(event.id)!.done = false;
      void this.read();
    } else if (action === 'die') {
      const c = this.containers.get(event.id);
      if (c) c.diedAt = at;
    }
  }

  private async read(): Promise<void> {
    await Promise.all(
      [...this.containers.values()]
        .filter((c) => !c.done)
        .map(async (c) => {
          const seconds = await cgroupCpu(c.id);
          if (seconds !== undefined) c.cpu = Math.max(c.cpu ?? 0, seconds);
          else if (c.diedAt !== undefined) c.done = true;
        }),
    );
  }
}

/** A container's CPU seconds so far from its cgroup, or undefined where it has none (not started, or gone). */
export async function cgroupCpu(id: string): Promise<number | undefined> {
  for (const path of CGROUP_USAGE) {
    const text = await readFile(path(id), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const v2 = /usage_usec (\d+)/.exec(text);
    return v2 ? Number(v2[1]) / 1e6 : Number(text.trim()) / 1e9;
  }
  return undefined;
}
