import Docker from 'dockerode';
import type { ActivityDeps } from '../activities';
import type { Config } from '../config';
import { baseImageTag } from '../environments/images';
import { ModelClient } from '../model/client';
import { Redactor } from '../redact';
import { MODEL_TRIES_IN_ACTIVITY } from '../retry-budget';
import { ContainerPool } from '../stage/pool';

/** Real clients from config; the model client only where an endpoint is configured. */
export function buildDeps(config: Config): ActivityDeps {
  const { model } = config;
  // The redactor keeps the worker's other secrets out of the judge's and query writer's error texts too.
  const redactor = Redactor.forWorker(process.env, [model.apiKey]);
  // Activities call the model; Temporal retries a failed activity, so the client does not retry as well.
  const retry = { attempts: MODEL_TRIES_IN_ACTIVITY, baseDelayMs: model.retryBaseMs };
  const client = model.baseUrl
    ? new ModelClient({ baseUrl: model.baseUrl, apiKey: model.apiKey, timeoutMs: model.timeoutMs, retry, redactor })
    : undefined;
  const docker = new Docker();
  const pool = new ContainerPool(docker, {
    size: config.sandbox.poolSize,
    host: config.worker.host,
    onError: (err) => console.error(`not keeping sandboxes warm for now: ${err.message}`),
  });
  return { config, docker, model: client, image: config.sandbox.image ?? baseImageTag(), pool };
}
