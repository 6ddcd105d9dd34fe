import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { TransientError } from '../errors';
import { DockerContainer, removeContainers, CONTAINER_LABEL, type ContainerSpec } from '../container/docker-container';
import { ownerGone } from '../container/orphans';

/**
 * A rollout round's container is found by its name: Docker cannot relabel a running container, but it
 * can rename one, so a warm container from the pool takes its round's name when a round takes it, and
 * a new one is created with it. The name encodes the workflow, the run, the host identity and the round
 * (hashed: names allow only [a-zA-Z0-9_.-]); the engine keeps names unique, so a round's create or
 * rename fails (409) exactly when a container of that round is already there.
 */
const PREFIX = 'chainsmith';
const HEX = '[0-9a-f]+';
const h = (s: string, n: number) => createHash('sha256').update(s).digest('hex').slice(0, n);

/** The round key of a stage's round in a run: the same on every attempt, on every host. */
export function roundKey(runKey: string, stage: number, round: number): string {
  return h(`${runKey}/${stage}/${round}`, 32);
}

function parts(runKey: string): [string, string] {
  const at = runKey.lastIndexOf('/');
  return at < 0 ? [runKey, ''] : [runKey.slice(0, at), runKey.slice(at + 1)];
}

export function roundName(runKey: string, host: string, key: string): string {
  const [workflowId, runId] = parts(runKey);
  return `${PREFIX}-${h(workflowId, 12)}-${h(runId, 8)}-${h(host, 8)}-${h(key, 12)}`;
}

/** For Docker's `name` filter (a regular expression): the rounds of a workflow, a run, a host, or of several at once. */
export function roundNamePattern(of: { workflowId?: string; runKey?: string; host?: string }): string {
  const [workflowId, runId] = of.runKey !== undefined ? parts(of.runKey) : [of.workflowId, undefined];
  const part = (s: string | undefined, n: number) => (s === undefined ? HEX : h(s, n));
  return `^/${PREFIX}-${part(workflowId, 12)}-${part(runId, 8)}-${part(of.host, 8)}-`;
}

/** Round containers (running or not) whose names match. */
export function roundContainers(
  docker: Docker,
  of: Parameters<typeof roundNamePattern>[0],
): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL], name: [roundNamePattern(of)] } });
}

/** Whether a round name (as Docker reports it, or without its leading '/') matches. */
export function matchesRound(of: Parameters<typeof roundNamePattern>[0]): (name: string) => boolean {
  const pattern = new RegExp(roundNamePattern(of));
  return (name) => pattern.test(name.startsWith('/') ? name : `/${name}`);
}

/**
 * Removes the round containers whose names match (a run's on a host, at its cleanup), after `pool`
 * (this worker's) has dropped those it is preparing, so that none starts after; returns how many.
 */
export async function removeRoundContainers(
  docker: Docker,
  of: Parameters<typeof roundNamePattern>[0],
  pool?: { dropPreparedWhere(match: (name: string) => boolean): Promise<number> },
): Promise<number> {
  const dropped = (await pool?.dropPreparedWhere(matchesRound(of))) ?? 0;
  const found = await roundContainers(docker, of);
  await removeContainers(
    docker,
    found.map((c) => c.Id),
  );
  return dropped + found.length;
}

/** Where a round's container came from: started for it, a warm one, one prepared for it, or a retried round's survivor. */
export type ContainerSource = 'new' | 'warm' | 'prepared' | 'reused';

/** Where the pool keeps containers: a prepared one already carries its round's name; a warm one is renamed to it. */
export interface RoundSource {
  take(spec: ContainerSpec, name: string): Promise<{ sandbox: DockerContainer; prepared: boolean } | undefined>;
}

/** Whether the engine refused because the name is taken (409), on its own error or one we wrapped (DockerContainer.create). */
export const nameHeld = (err: unknown) => {
  const e = err as { statusCode?: number; cause?: { statusCode?: number } };
  return e?.statusCode === 409 || e?.cause?.statusCode === 409;
};

/**
 * The round's container: the one of its name if it survived (a worker killed mid-round leaves it
 * running), else one from `pool` (prepared for this round, or warm), else a new one. A stopped
 * leftover (after a Docker restart, say), or one whose owning worker process died (the sweep of dead
 * workers' containers would remove it under the round), is removed and replaced. No list call: the
 * engine's name uniqueness says whether there is a survivor.
 */
export async function claimRoundContainer(
  docker: Docker,
  spec: ContainerSpec,
  name: string,
  pool?: RoundSource,
): Promise<{ sandbox: DockerContainer; source: ContainerSource }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const taken = await pool?.take(spec, name);
      if (taken) return { sandbox: taken.sandbox, source: taken.prepared ? 'prepared' : 'warm' };
      return { sandbox: await DockerContainer.create(docker, { ...spec, name }), source: 'new' };
    } catch (err) {
      if (!nameHeld(err)) throw err;
    }
    const found = await docker
      .getContainer(name)
      .inspect()
      .catch(() => undefined);
    if (!found) continue;
    const holder = docker.getContainer(found.Id);
    if (found.State.Running && !ownerGone(found.Config.Labels ?? {}))
      return { sandbox: DockerContainer.attach(docker, holder), source: 'reused' };
    await holder.remove({ force: true }).catch(() => undefined);
  }
  throw new TransientError(`cannot claim the sandbox ${name}: another container keeps taking its name`);
}
