import { z } from 'zod';
import type { ModelClient } from '../model/client';
import {
  ChainQueriesSchema,
  QueryPartsSchema,
  type Chain,
  type ChainQueries,
  type PullRequest,
  type QueryParts,
} from '../schemas';
import { DEFAULT_LEAK_LIMIT } from './leak-check';
import { mergeSecrets, patchSecrets } from './patch-secrets';
import { prompt } from '../model/prompt-files';
import { QUERY_WRITER_TRIES } from '../retry-budget';
import { writeWithoutLeaks, type Written } from './write-without-leaks';

export interface SynthesisOptions {
  /** Replies asked for per query, malformed and leaking ones included (default QUERY_WRITER_TRIES). */
  maxAttempts?: number;
  /** Highest leak score a query may keep (default DEFAULT_LEAK_LIMIT). */
  leakLimit?: number;
  /** The patch shown to the writer is cut to this many characters (default 24,000). */
  maxPatchChars?: number;
  /** Stops the writer's calls (an activity's cancellation). */
  signal?: AbortSignal;
  /**
   * Writes one piece (`stage-<i>`, `overview`) or returns it as an earlier attempt kept it: the
   * activity keeps each piece as it is written, so a worker killed during the overview does not ask
   * for every stage's query again.
   */
  keep?: <T>(piece: string, write: () => Promise<Written<T>>) => Promise<Written<T>>;
}

const OverviewSchema = z.object({ overview: z.string().min(1) });

/** The text the agent sees for one stage, from the four parts. */
export function renderQuery(parts: QueryParts): string {
  return prompt('queries', 'query', parts).trim();
}

function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)}\n[... ${text.length - max} more characters of the patch not shown ...]`;
}

function stageMessage(chain: Chain, index: number, maxPatchChars: number): string {
  const pr = chain.prs[index];
  const others = chain.prs
    .map((other, i) => (i === index ? undefined : `- stage ${i + 1}: ${other.title}`))
    .filter(Boolean);
  return prompt('queries', 'stage', {
    repo: chain.repo.name,
    position: index + 1,
    count: chain.prs.length,
    others: others.length ? `The other stages:\n${others.join('\n')}` : '',
    title: pr.title,
    description: pr.body.trim() || '(none)',
    commits: pr.messages.map((m) => `- ${m.split('\n')[0]}`).join('\n') || '(none)',
    files: pr.files.map((f) => `- ${f.path} (${f.kind}, ${f.status}, +${f.additions} -${f.deletions})`).join('\n'),
    patch: cut(pr.patch, maxPatchChars),
  });
}

function overviewMessage(chain: Chain, stageTexts: string[]): string {
  const stages = chain.prs.map((pr: PullRequest, i) =>
    [`Stage ${i + 1}: ${pr.title}`, pr.body.trim().split(/\n\s*\n/)[0] ?? '', `Task statement:\n${stageTexts[i]}`]
      .filter(Boolean)
      .join('\n'),
  );
  return prompt('queries', 'overview', { repo: chain.repo.name, count: chain.prs.length, stages: stages.join('\n\n') });
}

/**
 * Model-written, intent-only queries: per stage the paper's four steps (core intent, conceptual locus,
 * abstracted key logic, directive) as structured output, rendered into the text the agent sees, and one
 * overview of the chain. Each text is checked against the gold patch (the overview against all of
 * them) and regenerated with the findings while it leaks; its leak report is kept on the query.
 */
export async function synthesizeQueries(
  client: ModelClient,
  model: string,
  chain: Chain,
  opts: SynthesisOptions = {},
): Promise<ChainQueries> {
  const maxAttempts = opts.maxAttempts ?? QUERY_WRITER_TRIES;
  const leakLimit = opts.leakLimit ?? DEFAULT_LEAK_LIMIT;
  const system = { role: 'system' as const, content: prompt('queries', 'system') };
  const secrets = chain.prs.map((pr) => patchSecrets(pr.patch));
  const keep = opts.keep ?? ((_piece, write) => write());

  const stages = await Promise.all(
    chain.prs.map((pr, i) =>
      keep(`stage-${i}`, () =>
        writeWithoutLeaks({
          client,
          model,
          stage: i,
          messages: [system, { role: 'user', content: stageMessage(chain, i, opts.maxPatchChars ?? 24_000) }],
          format: { name: 'stage_query', schema: QueryPartsSchema },
          render: renderQuery,
          secrets: secrets[i],
          leakLimit,
          maxAttempts,
          signal: opts.signal,
          label: `the query for stage ${i + 1} (PR #${pr.number})`,
        }),
      ),
    ),
  );
  const overview = await keep('overview', () =>
    writeWithoutLeaks({
      client,
      model,
      messages: [
        system,
        {
          role: 'user',
          content: overviewMessage(
            chain,
            stages.map((s) => s.text),
          ),
        },
      ],
      format: { name: 'chain_overview', schema: OverviewSchema },
      render: (value) => value.overview.trim(),
      secrets: mergeSecrets(secrets),
      leakLimit,
      maxAttempts,
      signal: opts.signal,
      label: 'the chain overview',
    }),
  );
  return ChainQueriesSchema.parse({
    overview: overview.text,
    overviewLeak: overview.leak,
    stages: chain.prs.map((pr, i) => ({
      prNumber: pr.number,
      text: stages[i].text,
      parts: stages[i].value,
      leak: stages[i].leak,
    })),
    generator: 'model',
    model,
  });
}
