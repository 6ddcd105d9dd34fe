import type Docker from 'dockerode';
import { CONTAINER_LABEL } from '../../src/container/docker-container';
import { ownerLabel } from '../../src/container/orphans';
import type { Environments } from '../../src/environments/builder';

/**
 * The one-off sandboxes (gold validation, environment builds) this test process still owns, with the
 * given labels too: other runs on the same engine (a bench, another suite) are not the test's to judge.
 */
export async function ownSandboxes(docker: Docker, ...labels: string[]): Promise<Docker.ContainerInfo[]> {
  const owner = Object.entries(ownerLabel()).map(([k, v]) => `${k}=${v}`);
  return docker.listContainers({ all: true, filters: { label: [CONTAINER_LABEL, ...owner, ...labels] } });
}

/** Removes the images a test built (each once; one already gone, or still in use elsewhere, is left). */
export async function removeImages(docker: Docker, images: Iterable<string>): Promise<void> {
  for (const image of new Set(images))
    await docker
      .getImage(image)
      .remove()
      .catch(() => undefined);
}

/**
 * Removes, once the file's tests are over, the images `environments` and every environment later handed
 * to the returned function built: the clean-up each test file that builds images would otherwise repeat.
 */
export function removeBuiltImagesAfterAll(
  docker: Docker,
  ...environments: Environments[]
): (more: Environments) => Environments {
  afterAll(() =>
    removeImages(
      docker,
      environments.flatMap((e) => e.built.map((b) => b.image)),
    ),
  );
  return (more) => {
    environments.push(more);
    return more;
  };
}
