import type { TrainingSample } from '../schemas';

/** The paper's averages per sample (daVinci-Agency: 239 samples, 85k tokens, 116 tool calls). */
export const PAPER = { meanTokens: 85_000, meanToolCalls: 116 } as const;

export interface Distribution {
  count: number;
  total: number;
  mean: number;
  median: number;
  min: number;
  max: number;
}

export function distribution(values: number[]): Distribution {
  if (!values.length) return { count: 0, total: 0, mean: 0, median: 0, min: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return {
    count: sorted.length,
    total,
    mean: total / sorted.length,
    median,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

export interface DatasetStats {
  samples: number;
  /** Tokenizer counts (metadata.tokens), not estimates. */
  tokens: Distribution;
  assistantTokens: Distribution;
  toolCalls: Distribution;
  messages: Distribution;
  /** Tokens the API billed while the agent ran (prompt + completion). */
  apiTokens: Distribution;
  /** This dataset's means as a share of the paper's (1 = the paper's average). */
  vsPaper: { tokens: number; toolCalls: number };
}

export function datasetStats(samples: TrainingSample[]): DatasetStats {
  const tokens = distribution(samples.map((s) => s.metadata.tokens?.total ?? 0));
  const toolCalls = distribution(samples.map((s) => s.metadata.toolCalls));
  return {
    samples: samples.length,
    tokens,
    assistantTokens: distribution(samples.map((s) => s.metadata.tokens?.assistant ?? 0)),
    toolCalls,
    messages: distribution(samples.map((s) => s.messages.length)),
    apiTokens: distribution(samples.map((s) => s.metadata.usage.promptTokens + s.metadata.usage.completionTokens)),
    vsPaper: { tokens: tokens.mean / PAPER.meanTokens, toolCalls: toolCalls.mean / PAPER.meanToolCalls },
  };
}
