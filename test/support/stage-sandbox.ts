import Docker from 'dockerode';
import { SANDBOX_LABEL, type DockerSandbox } from '../../src/sandbox/docker-sandbox';
import type { Files } from '../../src/testing/chain-repo';
import { stageSandbox } from '../../src/testing/stage-sandbox';

/**
 * One stage sandbox for a test file, labelled `chainsmith.test=<label>`: made before its tests, removed
 * after them, and nothing with that label left behind. Returns a getter (the sandbox exists only once
 * beforeAll has run).
 */
export function useStageSandbox(label: string, files: Files): () => DockerSandbox {
  const docker = new Docker();
  let sandbox: DockerSandbox | undefined;
  beforeAll(async () => {
    ({ sandbox } = await stageSandbox(docker, files, { 'chainsmith.test': label }));
  });
  afterAll(async () => {
    await sandbox?.destroy();
    expect(await docker.listContainers({ all: true, filters: { label: [SANDBOX_LABEL, `chainsmith.test=${label}`] } })).toHaveLength(0);
  });
  return () => sandbox!;
}
