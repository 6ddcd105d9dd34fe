import type Docker from 'dockerode';
import { hostname } from 'node:os';
import { HOST_LABEL, KEY_LABEL, removeContainers, CONTAINER_LABEL } from './docker-container';

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

/**
 * Removes owned containers of this machine whose owning process is gone (killed mid-build, say): one-off
 * ones, and pooled ones of the host identity `host`. Where several host identities share one engine,
 * another's pooled containers are its own worker's to sweep when it comes back.
 */
export async function removeOrphans(docker: Docker, host?: string): Promise<number> {
  const found = await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, OWNER_LABEL] } });
  const ours = (labels: Record<string, string>) => labels[HOST_LABEL] === undefined || labels[HOST_LABEL] === host;
  const orphans = found.filter((c) => ownerGone(c.Labels) && !c.Labels[KEY_LABEL] && ours(c.Labels));
  await removeContainers(
    docker,
    orphans.map((c) => c.Id),
  );
  return orphans.length;
}

let sweep: Promise<number> | undefined;

/** Once per worker process, before its first one-off container. */
export function sweepOrphansOnce(docker: Docker): Promise<number> {
  sweep ??= removeOrphans(docker).catch(() => 0);
  return sweep;
}
