import type { Config } from '../config';
import { InputError } from '../errors';

/**
 * Fails fast, before any workflow starts, when the configured model endpoint does not answer at all.
 * Any HTTP answer counts as reachable: auth and model names are the endpoint's business.
 */
export async function checkModelEndpoint(config: Config): Promise<void> {
  const url = config.model.baseUrl;
  if (!url) return;
  try {
    await fetch(`${url.replace(/\/$/, '')}/models`, {
      headers: config.model.apiKey ? { authorization: `Bearer ${config.model.apiKey}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
  } catch (cause) {
    const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
    const reason = inner?.code ?? inner?.message ?? (cause as Error).message;
    throw new InputError(
      `the model endpoint ${url} is unreachable (${reason}); check OPENAI_BASE_URL or unset it to replay gold patches`,
      { cause },
    );
  }
}
