import type Docker from 'dockerode';
import { join } from 'node:path';
import type { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import type { Environments } from '../environments/builder';
import { environmentsFrom, sandboxSpecFrom } from '../environments/from-config';
import { commitDate } from '../environments/repo-files';
import type { ModelClient } from '../model/client';
import { Redactor } from '../redact';
import { SETUP_AGENT_ATTEMPTS } from '../retry-budget';
import { RecipesStore } from './recipes-file';
import { SetupAgent } from './setup-agent';

/** Where accepted recipes are saved: environments.recipesDir, or <dataDir>/recipes. */
export const recipesDirOf = (config: Config) => config.environments.recipesDir ?? join(config.dataDir, 'recipes');

/**
 * The environments of a `validate` run or a worker, reading the recipes the setup agent saved, and the
 * agent above them. `model` absent: saved recipes are still used; where detection fails, a note says a
 * model would let the agent try.
 */
export function setupFromConfig(
  config: Config,
  deps: {
    docker: Docker;
    store: ArtifactStore;
    baseImage: string;
    model?: ModelClient;
    log?: (line: string) => void;
    forgetOutages?: boolean;
  },
): { environments: Environments; agent: SetupAgent } {
  const log = deps.log ?? ((line: string) => console.error(line));
  const recipes = new RecipesStore(recipesDirOf(config), (message) => log(`warning: ${message}`));
  const saved = async (repoName: string, repoPath: string, sha: string) =>
    recipes.covering(repoName, await commitDate(repoPath, sha));
  const environments = environmentsFrom(config, deps.docker, deps.baseImage, undefined, saved);
  const modelName = config.model.name;
  const agent = new SetupAgent({
    gold: {
      docker: deps.docker,
      store: deps.store,
      sandbox: sandboxSpecFrom(config),
      environments,
      goldRuns: config.environments.goldRuns,
    },
    environmentsWith: (recipe) =>
      environmentsFrom(config, deps.docker, deps.baseImage, undefined, async (name) => recipe(name)),
    recipes,
    configured: (repo) => !!config.environments.repos[repo],
    docker: deps.docker,
    readerImage: deps.baseImage,
    ...(deps.model
      ? {
          model: {
            client: deps.model,
            name: modelName,
            price: config.budget.prices[modelName],
          },
        }
      : {}),
    attempts: config.environments.setupAttempts ?? SETUP_AGENT_ATTEMPTS,
    redactor: Redactor.forWorker(process.env, [config.model.apiKey]),
    log,
    ...(deps.forgetOutages ? { forgetOutages: true } : {}),
  });
  return { environments, agent };
}
