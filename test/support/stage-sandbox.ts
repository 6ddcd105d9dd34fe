import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerContainer, CONTAINER_LABEL } from '../../src/container/docker-container';
import { setUpStage } from '../../src/stage/setup';
import type { Chain } from '../../src/schemas';
import { ChainRepo, type Files } from './chain-repo';
import { testEnvironments } from './environments';

/**
 * A sandbox at the first stage of a one-PR chain over a small generated repository, set up the way a
 * rollout sets it up (environment image, checkout, carry tag). For tests of the agent and its tools.
 */
export async function stageSandbox(
  docker: Docker,
  files: Files,
  labels: Record<string, string>,
): Promise<{ sandbox: DockerContainer; chain: Chain }> {
  const repo = await ChainRepo.create(join(await mkdtemp(join(tmpdir(), 'chainsmith-stage-')), 'repo'), files);
  const chain = repo.chain('test/stage', [await repo.pr(1, 'A change', { 'CHANGELOG.md': 'changed\n' })]);
  const env = await testEnvironments(docker).forStage(chain, 0);
  const sandbox = await DockerContainer.create(docker, {
    image: env.image,
    mirrorPath: repo.path,
    labels,
    memoryMb: 512,
    pidsLimit: 128,
  });
  try {
    await setUpStage(sandbox, chain, 0, { progress: false });
  } catch (err) {
    await sandbox.destroy();
    throw err;
  }
  return { sandbox, chain };
}

/**
 * One stage sandbox for a test file, labelled `chainsmith.test=<label>`: made before its tests, removed
 * after them, and nothing with that label left behind. Returns a getter (the sandbox exists only once
 * beforeAll has run).
 */
export function useStageSandbox(label: string, files: Files): () => DockerContainer {
  const docker = new Docker();
  let sandbox: DockerContainer | undefined;
  beforeAll(async () => {
    ({ sandbox } = await stageSandbox(docker, files, { 'chainsmith.test': label }));
  });
  afterAll(async () => {
    await sandbox?.destroy();
    expect(
      await docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, `chainsmith.test=${label}`] } }),
    ).toHaveLength(0);
  });
  return () => sandbox!;
}
