import type Docker from 'dockerode';
import type { Config } from '../config';
import { Environments, type EnvironmentOptions } from './builder';

/** The sandbox limits every container of a worker gets. */
export function sandboxSpecFrom(config: Config) {
  return { memoryMb: config.sandbox.memoryMb, pidsLimit: config.sandbox.pidsLimit, cpus: config.environments.cpus };
}

/** The environments a worker (or `validate`) builds: one per process, so an image is built once and then found by its tag. */
export function environmentsFrom(
  config: Config,
  docker: Docker,
  baseImage: string,
  log?: (line: string) => void,
  savedRecipe?: EnvironmentOptions['savedRecipe'],
): Environments {
  return new Environments(docker, {
    ...sandboxSpecFrom(config),
    baseImage,
    dataDir: config.dataDir,
    overrides: config.environments.repos,
    network: config.environments.buildNetwork,
    timeoutSeconds: config.environments.buildTimeoutSeconds,
    defaultTestCommand: config.sandbox.testCommand,
    settings: config.environments,
    ...(log ? { log } : {}),
    ...(savedRecipe ? { savedRecipe } : {}),
  });
}
