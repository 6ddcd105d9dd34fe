import type Docker from 'dockerode';
import { cancellationSignal } from '@temporalio/activity';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { sandboxSpecFrom } from '../environments/from-config';
import type { ModelClient } from '../model/client';
import { Redactor } from '../redact';
import type { ContainerPool } from '../stage/pool';
import type { PolicyKind } from '../schemas';
import { setupFromConfig } from '../setup-agent/from-config';

export interface ActivityDeps {
  config: Config;
  docker: Docker;
  /** Present only when a model endpoint is configured. */
  model?: ModelClient;
  image: string;
  /** Warm sandboxes of this worker process; absent, every sandbox is started on demand. */
  pool?: ContainerPool;
}

/** What the activities share, built once per worker process from its dependencies. */
export function activityContext(deps: ActivityDeps) {
  const { config } = deps;
  const store = ArtifactStore.fromConfig(config);
  // Environments that use the setup agent's saved recipes, and the agent for stages detection cannot set up.
  const setup = setupFromConfig(config, {
    docker: deps.docker,
    store,
    baseImage: deps.image,
    model: deps.model,
    forgetOutages: true,
    log: (line) => process.stderr.write(`[setup-agent] ${line}\n`),
  });
  return {
    ...deps,
    store,
    host: config.worker.host,
    sandboxSpec: sandboxSpecFrom(config),
    environments: setup.environments,
    setupAgent: setup.agent,
    // The worker's key and secret-looking variables: never in a container, a prompt or a saved trajectory.
    redactor: Redactor.forWorker(process.env, [config.model.apiKey]),
    /**
     * The judge and query-writing model, for a model policy on a worker that has an endpoint. Called in an
     * activity: the activity's cancellation stops the model call in flight.
     */
    judgeModel: (policy: PolicyKind) =>
      deps.model && policy === 'model'
        ? { client: deps.model, model: config.model.judgeName ?? config.model.name, signal: cancellationSignal() }
        : undefined,
  };
}

export type ActivityContext = ReturnType<typeof activityContext>;
