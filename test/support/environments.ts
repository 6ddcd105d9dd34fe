import Docker from 'dockerode';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/store';
import { Environments } from '../../src/environments/builder';
import { baseImageTag } from '../../src/environments/images';
import type { RecipeOverride } from '../../src/environments/recipe';
import { PYTEST } from '../../src/environments/languages/python/pytest';
import type { GoldValidationDeps } from '../../src/judge/gold-validation';

/**
 * Environments as a worker builds them (offline, on the provisioned images), for tests and benchmarks.
 * Fetched dependencies are cached in the user's data directory, as a worker's are, so reruns reuse them;
 * `dataDir` gives a test one of its own (its shared build caches start empty).
 */
export function testEnvironments(
  docker: Docker = new Docker(),
  overrides: Record<string, RecipeOverride> = {},
  dataDir = process.env.CHAINSMITH_HOME ?? join(homedir(), '.chainsmith'),
  log: (line: string) => void = () => undefined,
): Environments {
  return new Environments(docker, {
    baseImage: baseImageTag(),
    dataDir,
    overrides,
    network: 'none',
    timeoutSeconds: 900,
    memoryMb: 1024,
    pidsLimit: 256,
    cpus: 1,
    defaultTestCommand: PYTEST,
    log,
  });
}

/** What gold validation needs in a test: its artifacts under `dir`, sandboxes capped as testEnvironments' builds are. */
export function goldDeps(docker: Docker, dir: string, environments: Environments): GoldValidationDeps {
  return {
    docker,
    store: new ArtifactStore(join(dir, 'artifacts')),
    sandbox: { memoryMb: 1024, pidsLimit: 256 },
    environments,
  };
}
