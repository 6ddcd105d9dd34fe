import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type Docker from 'dockerode';
import type { ActivityDeps } from '../activities';
import {
  CLUSTER_LABEL,
  clusterOf,
  HOST_LABEL,
  KEY_LABEL,
  removeContainers,
  RUN_KEY_LABEL,
  CONTAINER_LABEL,
} from '../container/docker-container';
import { removeOrphans } from '../container/orphans';

/**
 * Removes the rollout sandboxes of `host` (this worker's host identity) and `cluster` (clusterOf: the
 * Temporal cluster `client` talks to) whose chain run has closed. A worker killed mid-round leaves
 * its sandbox for the retry; if the retry ran on another host and the chain's cleanup could not reach
 * this one (its worker was down), nothing else would remove it. Runs when a worker starts; sandboxes
 * of open runs are left for their retries.
 */
export async function removeSandboxesOfClosedRuns(
  docker: Docker,
  client: Client,
  host: string,
  cluster: string,
): Promise<number> {
  // Only this cluster's: a run another cluster (or namespace) holds is not found here, and is not closed.
  const labels = [CONTAINER_LABEL, KEY_LABEL, `${HOST_LABEL}=${host}`, `${CLUSTER_LABEL}=${cluster}`];
  const found = await docker.listContainers({ all: true, filters: { label: labels } });
  const byRun = new Map<string, string[]>();
  for (const c of found) {
    const runKey = c.Labels[RUN_KEY_LABEL];
    if (runKey) byRun.set(runKey, [...(byRun.get(runKey) ?? []), c.Id]);
  }
  let removed = 0;
  for (const [runKey, ids] of byRun) {
    const at = runKey.lastIndexOf('/');
    const closed = await client.workflow
      .getHandle(runKey.slice(0, at), runKey.slice(at + 1))
      .describe()
      .then(
        (d) => d.status.name !== 'RUNNING',
        (err) => err instanceof WorkflowNotFoundError, // gone past retention; any other error: ask next time
      );
    if (!closed) continue;
    await removeContainers(docker, ids);
    removed += ids.length;
  }
  return removed;
}

/**
 * What a worker coming back to its host removes before it takes work: rollout sandboxes of runs that
 * closed while it was away, and one-off containers (gold validation, builds) of dead worker processes.
 * A failure is reported, not fatal: the next start tries again.
 */
export async function sweepHost(
  deps: ActivityDeps,
  client: Client,
  log: (line: string) => void = console.log,
): Promise<number> {
  const host = deps.config.worker.host;
  const [runs, orphans] = await Promise.all([
    removeSandboxesOfClosedRuns(deps.docker, client, host, clusterOf(deps.config.temporal)).catch(
      (err) => (log(`not sweeping sandboxes of finished chains this time: ${(err as Error).message}`), 0),
    ),
    removeOrphans(deps.docker, host).catch(
      (err) => (log(`not sweeping containers of dead workers this time: ${(err as Error).message}`), 0),
    ),
  ]);
  if (runs) log(`removed ${runs} sandbox${runs > 1 ? 'es' : ''} that finished chains left on host ${host}`);
  if (orphans)
    log(`removed ${orphans} container${orphans > 1 ? 's' : ''} of worker processes that died on this machine`);
  return runs + orphans;
}
