import type Docker from 'dockerode';
import { cancellationSignal } from '@temporalio/activity';
import { ArtifactStore } from '../artifacts/store';
import type { Config } from '../config';
import { environmentsFrom, sandboxSpecFrom } from '../environments/from-config';
import type { ModelClient } from '../model/client';
import { Redactor } from '../redact';
import type { ContainerPool } from '../stage/pool';
import type { PolicyKind } from '../schemas';

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
  return {
    ...deps,
    store: ArtifactStore.fromConfig(config),
    host: config.worker.host,
    sandboxSpec: sandboxSpecFrom(config),
    environments: environmentsFrom(config, deps.docker, deps.image),
    // The worker's key and secret-looking variables: never in a container, a prompt or a saved trajectory.
    redactor: Redactor.forWorker(process.env, [config.model.apiKey]),
    /**
     * The judge and query-writing model, for a model policy on a worker that has an endpoint. Called in an
     * activity: the activity's cancellation stops the model call in flight.
     */
    judgeModel: (policy: PolicyKind) =>
      deps.model && policy === 'model' ? { client: deps.model, model: config.model.judgeName ?? config.model.name, signal: cancellationSignal() } : undefined,
  };
}

export type ActivityContext = ReturnType<typeof activityContext>;
