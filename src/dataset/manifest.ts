import { z } from 'zod';
import { DateWindowSchema } from '../date-window';
import type { PolicyKind, ScaffoldKind } from '../schemas';

const RunCounts = z.object({ total: z.number().int(), accepted: z.number().int(), rejected: z.number().int() });

/** manifest.json of an export: what is in it, what was left out and why. No timestamps: same input, same bytes. */
export const ManifestSchema = z.object({
  format: z.literal('chainsmith-sft-v1'),
  tokenizer: z.string(),
  runs: RunCounts.extend({
    /** The same counts per scaffold: how often each gets a chain accepted. Absent in earlier manifests. */
    byScaffold: z.record(z.string(), RunCounts).optional(),
  }),
  samples: z.object({
    total: z.number().int(),
    byPolicy: z.record(z.string(), z.number().int()),
    /** Absent in manifests written before there were two scaffolds (all of whose samples were 'tools'). */
    byScaffold: z.record(z.string(), z.number().int()).optional(),
    /** New in this export; the others were exported before and are kept as they were. */
    added: z.number().int(),
  }),
  duplicates: z.object({ sameContent: z.number().int(), sameChain: z.number().int() }),
  rejections: z.array(
    z.object({
      chainId: z.string(),
      workflowId: z.string().optional(),
      policy: z.string(),
      status: z.string(),
      reason: z.string(),
    }),
  ),
  files: z.array(
    z.object({
      path: z.string(),
      format: z.enum(['openai', 'sharegpt', 'runs']),
      rows: z.number().int(),
      sha256: z.string(),
    }),
  ),
  /** Dataset stats per policy and scaffold, keyed by statsKey(). */
  stats: z.record(z.string(), z.unknown()),
  leak: z.object({
    queries: z.number().int(),
    caught: z.number().int(),
    leaked: z.number().int(),
    rate: z.number(),
    firstRate: z.number(),
    meanScore: z.number(),
    regenerations: z.number().int(),
  }),
  paper: z.object({ meanTokens: z.number(), meanToolCalls: z.number() }),
  /**
   * With --merged-after/--merged-before: the window every sample's PRs were merged in, and the runs of
   * this export left out for merging outside it or for carrying no merge dates.
   */
  window: DateWindowSchema.extend({ runsOutside: z.number().int(), runsUndated: z.number().int() }).optional(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** 'model' or 'gold-replay' for the tools scaffold (the keys of earlier manifests), 'model/bash' for the bash one. */
export function statsKey(policy: PolicyKind, scaffold: ScaffoldKind): string {
  return scaffold === 'tools' ? policy : `${policy}/${scaffold}`;
}
