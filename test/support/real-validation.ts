import Docker from 'dockerode';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { goldTestsFor } from '../../src/judge/gold-validation';
import { CONTAINER_LABEL } from '../../src/container/docker-container';
import { OWNER_LABEL, ownerLabel } from '../../src/container/orphans';
import { testEnvironments } from './environments';
import { bundlePath, cloneBundle, pullRequestChain, SHARED_REPOS } from './real-repos';

/**
 * For the real-repository environment tests (one file per language, so jest runs their compilers side
 * by side): dependencies fetched on the host, the image built offline from them, and a real PR
 * gold-validated in a sandbox with network none.
 */
const docker = new Docker();

/** `test`, or `test.skip` with a warning where the bundle is absent. */
export const realTest = (bundle: string) => {
  if (bundlePath(bundle)) return test;
  console.warn(`skipping: no ${bundle}.bundle in ${SHARED_REPOS}`);
  return test.skip;
};

/** Builds the environment of PR `pr` (a one-stage chain) and gold-validates it; no container is left. */
export async function validateReal(bundle: string, repoName: string, pr: number, branch: string, repoPath?: string) {
  const repo = repoPath ?? (await cloneBundle(bundle));
  const chain = await pullRequestChain(repo, repoName, pr, branch);
  const environments = testEnvironments(docker);
  const env = await environments.forStage(chain, 0);
  const store = new ArtifactStore(join(await mkdtemp(join(tmpdir(), 'chainsmith-real-')), 'artifacts'));
  const gold = await goldTestsFor(
    { docker, store, sandbox: { memoryMb: 2048, pidsLimit: 512 }, environments, timeoutSeconds: 900 },
    chain,
    0,
  );
  expect(
    await docker.listContainers({
      all: true,
      filters: { label: [CONTAINER_LABEL, 'chainsmith.gold', `${OWNER_LABEL}=${ownerLabel()[OWNER_LABEL]}`] },
    }),
  ).toHaveLength(0);
  return { env, gold };
}
