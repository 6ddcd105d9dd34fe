import Docker from 'dockerode';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { KEY_LABEL, CONTAINER_LABEL } from '../../src/container/docker-container';
import { baseImageTag } from '../../src/environments/images';
import { OWNER_LABEL, removeOrphans } from '../../src/container/orphans';

const docker = new Docker();

test('one-off containers of a worker process that died are removed; live owners and rollout sandboxes are left alone', async () => {
  const dead = spawnSync('true').pid!; // exited by now
  const make = (labels: Record<string, string>) =>
    docker.createContainer({
      Image: baseImageTag(),
      Cmd: ['true'],
      Labels: { [CONTAINER_LABEL]: '1', 'chainsmith.test': 'orphans', ...labels },
      HostConfig: { NetworkMode: 'none' },
    });
  const orphan = await make({ [OWNER_LABEL]: `${hostname()}:${dead}` });
  const live = await make({ [OWNER_LABEL]: `${hostname()}:${process.pid}` });
  const elsewhere = await make({ [OWNER_LABEL]: `another-host:${dead}` });
  const rollout = await make({ [OWNER_LABEL]: `${hostname()}:${dead}`, [KEY_LABEL]: 'k' });
  try {
    // Not its count: a worker of another test file, sweeping this host's orphans as it starts, may remove this one first.
    await removeOrphans(docker);
    const left = (await docker.listContainers({ all: true, filters: { label: ['chainsmith.test=orphans'] } })).map(
      (c) => c.Id,
    );
    expect(left.sort()).toEqual([live.id, elsewhere.id, rollout.id].sort());
    expect(left).not.toContain(orphan.id);
  } finally {
    await Promise.all([orphan, live, elsewhere, rollout].map((c) => c.remove({ force: true }).catch(() => undefined)));
  }
});
