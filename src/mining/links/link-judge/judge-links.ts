import { costOf, type Price } from '../../../agent/pricing';
import type { ModelClient } from '../../../model/client';
import type { Redactor } from '../../../redact';
import { MalformedReplyError, ModelError, ModelRefusedError } from '../../../model/errors';
import type { Edge, EdgeJudgement, PullRequest, PullRequestRecord, Usage } from '../../../schemas';
import type { PatchSource } from '../../landings/patch-source';
import type { ProgressListener } from '../../progress';
import { addUsage, askVerdict, NoVerdictError, promptVersion, type LinkVerdict } from './ask-model';
import type { LinkJudgeTally } from './tally';
import { VerdictCache } from './verdict-cache';

/** What the mine knows when it asks for judgement. */
export interface JudgeInput {
  /** owner/name: verdicts are cached per repository. */
  repo: string;
  records: ReadonlyMap<number, PullRequestRecord>;
  /** PRs that may be stages: a link with an end outside them joins no chain, so it is not worth a call. */
  eligible: ReadonlySet<number>;
  patches: PatchSource;
  /** Below it an edge is a hint that joins no chain: not worth a call either. */
  minConfidence: number;
  onProgress?: ProgressListener;
}

interface JudgeOutcome {
  edges: Edge[];
  tally: LinkJudgeTally;
}

/** The mining pipeline's one hook (pipeline.ts): the edges back, judged, and what it took. */
export type LinkJudge = ((edges: Edge[], input: JudgeInput) => Promise<JudgeOutcome>) & {
  /** Whose verdicts: a mine's cursor keeps it, so a rerun does not mix two judges' graphs. */
  readonly model: string;
};

interface LinkJudgeOptions {
  client: ModelClient;
  model: string;
  /** Absent: tokens are counted, cost is not known. */
  price?: Price;
  /** Root of the verdict cache (<dataDir>/cache/link-judge). */
  cacheDir: string;
  warn: (message: string) => void;
  /** Takes secrets and token-shaped text out of the PR texts and diffs before they are sent. */
  redactor?: Redactor;
  /** Pairs asked at once. */
  concurrency?: number;
}

/** The edges worth a verdict: code history, or weak words, strong enough to join a chain of stageable PRs. */
function isCandidate(edge: Edge, input: Pick<JudgeInput, 'eligible' | 'minConfidence' | 'records'>): boolean {
  if (edge.from === edge.to || edge.confidence < input.minConfidence || edge.judgement?.status === 'judged')
    return false;
  if (edge.kind !== 'code-history' && edge.strength !== 'weak') return false;
  return [edge.from, edge.to].every((n) => input.eligible.has(n) && input.records.has(n));
}

/**
 * A failure that says the endpoint will not answer any pair now: it is down, overloaded past the
 * layer's retries, or refuses the key or the model. Other refusals (a pair too large) are the pair's.
 */
function isOutage(error: unknown): error is ModelError {
  if (!(error instanceof ModelError) || error instanceof MalformedReplyError) return false;
  return !(error instanceof ModelRefusedError) || [401, 402, 403, 404].includes(error.status);
}

type Result = { verdict: LinkVerdict; cached: boolean } | { notJudged: string };

const pairKey = (edge: Edge) => `${edge.from}->${edge.to}`;

/**
 * The link judge of `mine --judge-links`: every candidate edge gets the model's verdict (cached on disk
 * by repository, pair, model and prompt version). Strong or weak becomes the edge's strength, with the
 * reason in its evidence; none drops the edge. When the model cannot answer the edge stays as mined,
 * marked not judged with the reason, and after an outage no more pairs are asked: the mine goes on.
 */
export function createLinkJudge(opts: LinkJudgeOptions): LinkJudge {
  const version = promptVersion();
  const judge = async (edges: Edge[], input: JudgeInput): Promise<JudgeOutcome> => {
    const cache = new VerdictCache(opts.cacheDir, input.repo, opts.model, version);
    const candidates = edges.filter((edge) => isCandidate(edge, input));
    const results = new Map<string, Result>();
    let usage: Usage = { promptTokens: 0, completionTokens: 0 };
    let requests = 0;
    let outage: string | undefined;
    let cacheFailure = false;

    const toAsk: Edge[] = [];
    for (const edge of candidates) {
      const hit = await cache.get(edge.from, edge.to);
      if (hit) results.set(pairKey(edge), { verdict: hit.verdict, cached: true });
      else toAsk.push(edge);
    }
    const patched = new Map<number, Promise<PullRequest | undefined>>();
    const patchOf = (n: number) => {
      if (!patched.has(n))
        patched.set(
          n,
          input.patches([input.records.get(n) as PullRequestRecord]).then((prs) => prs[0]),
        );
      return patched.get(n) as Promise<PullRequest | undefined>;
    };

    const judgeOne = async (edge: Edge): Promise<Result> => {
      if (outage) return { notJudged: `not asked after an outage: ${outage}` };
      let earlier: PullRequest | undefined;
      let later: PullRequest | undefined;
      try {
        [earlier, later] = await Promise.all([patchOf(edge.to), patchOf(edge.from)]);
      } catch (error) {
        return { notJudged: `no patch to show: ${(error as Error).message}` };
      }
      if (!earlier || !later) return { notJudged: `no patch to show for #${earlier ? edge.from : edge.to}` };
      try {
        const asked = await askVerdict(opts.client, opts.model, edge, earlier, later, opts.redactor);
        requests += asked.requests;
        usage = addUsage(usage, asked.usage);
        await cache
          .put({ from: edge.from, to: edge.to, verdict: asked.verdict, usage: asked.usage })
          .catch((error: Error) => {
            if (!cacheFailure)
              opts.warn(`link verdicts cannot be cached in ${opts.cacheDir} (${error.message}): a rerun asks again`);
            cacheFailure = true;
          });
        return { verdict: asked.verdict, cached: false };
      } catch (error) {
        if (error instanceof NoVerdictError) {
          requests += error.requests;
          usage = addUsage(usage, error.usage);
          return { notJudged: error.message };
        }
        if (!(error instanceof ModelError)) throw error;
        if (isOutage(error) && !outage) {
          outage = error.message;
          opts.warn(`${error.message}: links not judged yet are kept as mined, marked not judged`);
        }
        return { notJudged: error.message };
      }
    };

    let next = 0;
    let done = candidates.length - toAsk.length;
    input.onProgress?.({ phase: 'judging links', done, total: candidates.length });
    const worker = async () => {
      while (next < toAsk.length) {
        const edge = toAsk[next++];
        results.set(pairKey(edge), await judgeOne(edge));
        input.onProgress?.({ phase: 'judging links', done: ++done, total: candidates.length });
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, toAsk.length) }, worker));

    const judged = apply(edges, results, opts.model);
    const outcomes = [...results.values()];
    const cost = costOf(usage, opts.price);
    return {
      edges: judged.edges,
      tally: {
        model: opts.model,
        promptVersion: version,
        candidates: candidates.length,
        judged: outcomes.filter((r) => 'verdict' in r).length,
        fromCache: outcomes.filter((r) => 'verdict' in r && r.cached).length,
        dropped: judged.dropped.length,
        notJudged: outcomes.filter((r) => 'notJudged' in r).length,
        requests,
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        ...(cost === undefined ? {} : { costUsd: Math.round(cost * 1e6) / 1e6 }),
        droppedLinks: judged.dropped,
        notJudgedReasons: [...new Set(outcomes.flatMap((r) => ('notJudged' in r ? [r.notJudged] : [])))],
      },
    };
  };
  return Object.assign(judge, { model: opts.model });
}

/** Verdicts onto the edges: none drops one, strong or weak sets its strength and adds to its evidence. */
function apply(
  edges: Edge[],
  results: ReadonlyMap<string, Result>,
  model: string,
): { edges: Edge[]; dropped: LinkJudgeTally['droppedLinks'] } {
  const kept: Edge[] = [];
  const dropped: LinkJudgeTally['droppedLinks'] = [];
  for (const edge of edges) {
    const result = results.get(pairKey(edge));
    if (!result) {
      kept.push(edge);
    } else if ('notJudged' in result) {
      const judgement: EdgeJudgement = { status: 'not judged', reason: result.notJudged };
      kept.push({ ...edge, judgement });
    } else if (result.verdict.verdict === 'none') {
      dropped.push({ from: edge.from, to: edge.to, kind: edge.kind, reason: result.verdict.reason });
    } else {
      const { verdict, reason } = result.verdict;
      kept.push({
        ...edge,
        evidence: `${edge.evidence}; ${model} judged it ${verdict}: ${reason}`,
        strength: verdict,
        strengthWhy: `${model}: ${reason}`,
        judgement: { status: 'judged', verdict, reason, model },
      });
    }
  }
  return { edges: kept, dropped };
}
