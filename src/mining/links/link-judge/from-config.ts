import { join } from 'node:path';
import type { Config } from '../../../config';
import { ModelClient } from '../../../model/client';
import { retryPolicyFrom } from '../../../model/retry';
import { Redactor } from '../../../redact';
import { createLinkJudge, type LinkJudge } from './judge-links';

/** Where verdicts are kept under the data directory. */
const linkJudgeCacheDir = (dataDir: string) => join(dataDir, 'cache', 'link-judge');

/**
 * The link judge of `mine --judge-links` on the configured endpoint and judge model (the agent's model
 * where no judge model is set). With no endpoint configured there is nothing to ask: a note says so
 * and the mine goes on unjudged, so one mine command serves hosts with a model and hosts without.
 */
export function linkJudgeFromConfig(
  config: Config,
  note: (message: string) => void = (m) => console.error(`note: ${m}`),
): LinkJudge | undefined {
  const { model } = config;
  if (!model.baseUrl) {
    note(
      '--judge-links needs a model endpoint (CHAINSMITH_MODEL_BASE_URL or model.baseUrl in the config): links are not judged in this mine',
    );
    return undefined;
  }
  const redactor = Redactor.forWorker(process.env, [model.apiKey]);
  const client = new ModelClient({
    baseUrl: model.baseUrl,
    apiKey: model.apiKey,
    timeoutMs: model.timeoutMs,
    retry: retryPolicyFrom(model),
    redactor,
  });
  const name = model.judgeName ?? model.name;
  return createLinkJudge({
    client,
    model: name,
    price: config.budget.prices[name],
    cacheDir: linkJudgeCacheDir(config.dataDir),
    redactor,
    warn: (message) => console.error(`warning: ${message}`),
  });
}
