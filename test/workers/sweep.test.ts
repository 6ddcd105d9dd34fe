import { Client, Connection } from '@temporalio/client';
import Docker from 'dockerode';
import { hostname } from 'node:os';
import {
  CLUSTER_LABEL,
  clusterOf,
  HOST_LABEL,
  KEY_LABEL,
  RUN_KEY_LABEL,
  CONTAINER_LABEL,
} from '../../src/container/docker-container';
import { baseImageTag } from '../../src/environments/images';
import { testConfig } from '../support/engines';
import { removeSandboxesOfClosedRuns } from '../../src/workers/sweep';

const docker = new Docker();

test('a starting worker removes its host’s sandboxes of closed chain runs, and leaves open runs, other hosts and other Temporal clusters alone', async () => {
  const { temporal } = testConfig();
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: temporal.namespace });
  // Runs on a queue no worker polls: they stay open until terminated.
  const queue = `sweep-${Date.now()}`;
  const start = (id: string) =>
    client.workflow.start('chainWorkflow', { workflowId: `${queue}-${id}`, taskQueue: queue, args: [] });
  const open = await start('open');
  const closed = await start('closed');
  await closed.terminate('the chain ended');
  const runKey = (h: typeof open) => `${h.workflowId}/${h.firstExecutionRunId}`;
  const make = (labels: Record<string, string>) =>
    docker.createContainer({
      Image: baseImageTag(),
      Cmd: ['true'],
      Labels: { [CONTAINER_LABEL]: '1', [KEY_LABEL]: 'k', 'chainsmith.test': queue, ...labels },
      HostConfig: { NetworkMode: 'none' },
    });
  const cluster = clusterOf(testConfig().temporal);
  const here = { [HOST_LABEL]: hostname(), [CLUSTER_LABEL]: cluster };
  const ofClosed = await make({ ...here, [RUN_KEY_LABEL]: runKey(closed) });
  const ofOpen = await make({ ...here, [RUN_KEY_LABEL]: runKey(open) });
  const ofClosedElsewhere = await make({
    [HOST_LABEL]: 'another-host',
    [CLUSTER_LABEL]: cluster,
    [RUN_KEY_LABEL]: runKey(closed),
  });
  // A run of another cluster (a second dev server, say) is unknown to this one, but not closed.
  const ofOtherCluster = await make({
    ...here,
    [CLUSTER_LABEL]: 'default@127.0.0.1:1',
    [RUN_KEY_LABEL]: `${queue}-elsewhere/00000000-0000-4000-8000-000000000001`,
  });
  const ofForgotten = await make({
    ...here,
    [RUN_KEY_LABEL]: `${queue}-never-started/00000000-0000-4000-8000-000000000000`,
  });
  try {
    expect(await removeSandboxesOfClosedRuns(docker, client, hostname(), cluster)).toBeGreaterThanOrEqual(2);
    const left = (await docker.listContainers({ all: true, filters: { label: [`chainsmith.test=${queue}`] } })).map(
      (c) => c.Id,
    );
    expect(left.sort()).toEqual([ofOpen.id, ofClosedElsewhere.id, ofOtherCluster.id].sort());
    expect(left).not.toContain(ofClosed.id);
    expect(left).not.toContain(ofForgotten.id);
  } finally {
    await open.terminate('test over').catch(() => undefined);
    await Promise.all(
      [ofClosed, ofOpen, ofClosedElsewhere, ofOtherCluster, ofForgotten].map((c) =>
        c.remove({ force: true }).catch(() => undefined),
      ),
    );
    await connection.close();
  }
});
