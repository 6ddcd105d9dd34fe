import type Docker from 'dockerode';
import { hostname } from 'node:os';
import { KEY_LABEL, removeContainers, SANDBOX_LABEL } from './docker-sandbox';

/**
 * On one-off containers (gold validation, environment builds) and pooled ones (warm, prepared, or
 * taken by a round): the worker process that owns them. A rollout's sandbox started for its round has
 * no owner: a retried round comes back for it, and the workflow's cleanup removes what is left.
 */
export const OWNER_LABEL = 'chainsmith.owner';

export function ownerLabel(): Record<string, string> {
  return { [OWNER_LABEL]: `${hostname()}:${process.pid}` };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the worker process named in these labels (OWNER_LABEL) ran on this machine and is gone. */
export function ownerGone(labels: Record<string, string>): boolean {
  const [host, pid] = (labels[OWNER_LABEL] ?? '').split(':');
  return host === hostname() && Number(pid) > 0 && !alive(Number(pid));
}

/** Removes one-off containers of this host whose owning process is gone (killed mid-build, say). */
export async function removeOrphans(docker: Docker): Promise<number> {
  const found = await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, OWNER_LABEL] } });
  const orphans = found.filter((c) => ownerGone(c.Labels) && !c.Labels[KEY_LABEL]);
  await removeContainers(docker, orphans.map((c) => c.Id));
  return orphans.length;
}

let sweep: Promise<number> | undefined;

/** Once per worker process, before its first one-off container. */
export function sweepOrphansOnce(docker: Docker): Promise<number> {
  sweep ??= removeOrphans(docker).catch(() => 0);
  return sweep;
}
