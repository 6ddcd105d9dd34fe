import type { Chain, ChainQueries, LeakReport } from '../schemas';
import { DEFAULT_LEAK_LIMIT, leakReport } from './leak-check';
import { mergeSecrets, patchSecrets } from './patch-secrets';

/** Leak reports for queries written in one go (the template generator): nothing was regenerated. */
export function measureLeaks(queries: ChainQueries, chain: Chain, limit = DEFAULT_LEAK_LIMIT): ChainQueries {
  const secrets = chain.prs.map((pr) => patchSecrets(pr.patch));
  return {
    ...queries,
    overviewLeak: queries.overviewLeak ?? leakReport(queries.overview, mergeSecrets(secrets), limit),
    stages: queries.stages.map((stage, i) => ({
      ...stage,
      leak: stage.leak ?? leakReport(stage.text, secrets[i], limit),
    })),
  };
}

export interface LeakSummary {
  /** Queries with a leak report: stage queries and overviews. */
  queries: number;
  /** Queries whose first generation was over the limit (caught by the check). */
  caught: number;
  /** Queries still over the limit after the last regeneration: the leak rate's numerator. */
  leaked: number;
  /** leaked / queries; 0 when there are no queries. */
  rate: number;
  /** caught / queries: how often the writer leaked before feedback. */
  firstRate: number;
  meanScore: number;
  regenerations: number;
}

export function summarizeLeaks(all: ChainQueries[]): LeakSummary {
  const reports: LeakReport[] = all.flatMap((q) =>
    [q.overviewLeak, ...q.stages.map((s) => s.leak)].filter((r): r is LeakReport => !!r),
  );
  const n = reports.length;
  const caught = reports.filter((r) => r.firstScore > r.limit).length;
  const leaked = reports.filter((r) => !r.passed).length;
  return {
    queries: n,
    caught,
    leaked,
    rate: n ? leaked / n : 0,
    firstRate: n ? caught / n : 0,
    meanScore: n ? reports.reduce((sum, r) => sum + r.score, 0) / n : 0,
    regenerations: reports.reduce((sum, r) => sum + r.attempts - 1, 0),
  };
}
