import Docker from 'dockerode';
import { Environments } from '../sandbox/environment';
import { baseImageTag } from '../sandbox/image';
import type { RecipeOverride } from '../sandbox/recipe';

export const TEST_COMMAND = 'python3 -m pytest -q -p no:cacheprovider';

/** Environments as a worker builds them (offline, on the provisioned base image), for tests and benchmarks. */
export function testEnvironments(docker: Docker = new Docker(), overrides: Record<string, RecipeOverride> = {}): Environments {
  return new Environments(docker, {
    baseImage: baseImageTag(),
    overrides,
    network: 'none',
    timeoutSeconds: 600,
    memoryMb: 1024,
    pidsLimit: 256,
    cpus: 1,
    defaultTestCommand: TEST_COMMAND,
  });
}
