import type Docker from 'dockerode';
import { BUILD_LABEL } from '../../src/environments/builder';
import { ownerLabel } from '../../src/container/orphans';
import { containerEvents, type ContainerEvent, type EventStream } from './container-events';

/** One environment build container as Docker reported it while it ran. */
export interface BuildContainer {
  id: string;
  /** The environment image it builds (its BUILD_LABEL). */
  image: string;
  /** HostConfig.NetworkMode and the networks it was attached to; 'unknown' where it was gone before it could be inspected. */
  networkMode: string;
  networks: string[];
  /** What the caller was doing when it started (the bench's language, say). */
  tag: string;
}

/** Offline: network mode none and attached to no network but none. */
export const isOffline = (c: BuildContainer) => c.networkMode === 'none' && c.networks.every((n) => n === 'none');

/**
 * Every build container this process starts while this watches, inspected as it starts (Docker's event
 * stream, filtered on the builder's label with an image in it, and on this process as its owner): what
 * it actually ran with, not what the config asked for. Sandboxes started from an environment image
 * carry the label too, empty (the image has it), and other processes' builds carry their own owner.
 */
export class BuildContainerWatch {
  readonly seen: BuildContainer[] = [];
  private stream?: EventStream;
  private pending: Promise<void>[] = [];
  /** Set by the caller; recorded on each container that starts meanwhile. */
  tag = '';

  constructor(private readonly docker: Docker) {}

  async start(): Promise<void> {
    const owner = Object.entries(ownerLabel()).map(([k, v]) => `${k}=${v}`);
    this.stream = await containerEvents(this.docker, { events: ['start'], labels: [BUILD_LABEL, ...owner] }, (event) =>
      this.pending.push(this.record(event)),
    );
  }

  /** Waits for the inspections of the containers started so far. */
  async settle(): Promise<void> {
    // Docker delivers an event a moment after the start; the builds here take seconds.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(this.pending);
  }

  async stop(): Promise<void> {
    await this.settle();
    this.stream?.destroy?.();
  }

  private async record(event: ContainerEvent): Promise<void> {
    const tag = this.tag;
    const image = event.Actor?.Attributes?.[BUILD_LABEL];
    if (!image) return;
    try {
      const info = await this.docker.getContainer(event.id).inspect();
      this.seen.push({
        id: event.id,
        image,
        tag,
        networkMode: info.HostConfig.NetworkMode ?? '',
        networks: Object.keys(info.NetworkSettings.Networks ?? {}),
      });
    } catch {
      this.seen.push({ id: event.id, image, tag, networkMode: 'unknown', networks: [] });
    }
  }
}
