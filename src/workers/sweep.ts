import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type Docker from 'dockerode';
import { hostname } from 'node:os';
import { HOST_LABEL, KEY_LABEL, removeContainers, RUN_KEY_LABEL, SANDBOX_LABEL } from '../sandbox/docker-sandbox';

/**
 * Removes this host's rollout sandboxes whose chain run has closed. A worker killed mid-round leaves
 * its sandbox for the retry; if the retry ran on another host and the chain's cleanup could not reach
 * this one (its worker was down), nothing else would remove it. Runs when a worker starts; sandboxes
 * of open runs are left for their retries.
 */
export async function removeSandboxesOfClosedRuns(docker: Docker, client: Client): Promise<number> {
  const found = await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, KEY_LABEL, `${HOST_LABEL}=${hostname()}`] } });
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
