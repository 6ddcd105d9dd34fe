import type { ModelClient } from '../model/client';
import type { Chain, ChainQueries } from '../schemas';
import { measureLeaks } from './leak-rate';
import { synthesizeQueries, type SynthesisOptions } from './synthesize';
import { templateQueries } from './template';

/**
 * The queries a chain runs with: model-written when a writer model is given, else the template
 * (gold replays need no model), either way with a leak report on every query.
 */
export async function chainQueries(
  chain: Chain,
  writer?: { client: ModelClient; model: string; signal?: AbortSignal },
  opts: SynthesisOptions = {},
): Promise<ChainQueries> {
  if (writer) return synthesizeQueries(writer.client, writer.model, chain, { ...opts, signal: writer.signal });
  return measureLeaks(templateQueries(chain), chain, opts.leakLimit);
}
