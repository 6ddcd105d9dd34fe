import Docker from 'dockerode';
import OpenAI from 'openai';
import type { ActivityDeps } from '../activities';
import type { Config } from '../config';
import { baseImageTag } from '../environments/images';

/** Real clients from config. The SDK does not retry: Temporal's retry policy is the one layer that does. */
export function buildDeps(config: Config): ActivityDeps {
  const openai = config.model.baseUrl
    ? new OpenAI({ baseURL: config.model.baseUrl, apiKey: config.model.apiKey ?? 'unset', maxRetries: 0, timeout: config.model.timeoutMs })
    : undefined;
  return { config, docker: new Docker(), openai, image: config.sandbox.image ?? baseImageTag() };
}
