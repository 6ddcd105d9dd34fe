import type { Edge, EdgeKind, EdgeSource, PullRequestRecord } from '../../schemas';

/** A PR's reference to an issue (a number that is no PR), classified like references to PRs. */
export interface IssueReference {
  pr: number;
  issue: number;
  kind: EdgeKind;
  confidence: number;
  evidence: string;
  source: EdgeSource;
}

/** Two PRs that both say they fix one issue: the later one most often finishes what the first began. */
const SAME_ISSUE_CONFIDENCE = 0.6;
/** Only naming the issue a PR fixed: related, not dependent. */
const MENTION_CONFIDENCE = 0.4;
/** The issue stands between the two PRs: a little less sure than the same words naming the PR. */
const THROUGH_ISSUE = 0.9;

/**
 * Links through issues: PR A closes issue #X, and a later PR B refers to #X. B depends on A with the
 * kind its wording gives ("regression from #X" → regression-of); a second fix of the same issue is a
 * follow-up; a plain mention stays a weak 'mentions'. B links to the latest earlier PR that closed #X.
 */
export function issueMediatedEdges(prs: readonly PullRequestRecord[], references: readonly IssueReference[]): Edge[] {
  const mergedAt = new Map(prs.map((pr) => [pr.number, pr.mergedAt]));
  const closers = new Map<number, Set<number>>();
  for (const reference of references) {
    if (reference.kind === 'fixes')
      closers.set(reference.issue, (closers.get(reference.issue) ?? new Set()).add(reference.pr));
  }
  const best = new Map<string, Edge>();
  for (const reference of references) {
    const when = mergedAt.get(reference.pr) ?? '';
    const earlier = [...(closers.get(reference.issue) ?? [])].filter(
      (a) => a !== reference.pr && (mergedAt.get(a) ?? '') < when,
    );
    if (earlier.length === 0) continue;
    const closer = earlier.reduce((a, b) => ((mergedAt.get(a) ?? '') >= (mergedAt.get(b) ?? '') ? a : b));
    const [kind, confidence] =
      reference.kind === 'fixes'
        ? (['follow-up', SAME_ISSUE_CONFIDENCE] as const)
        : reference.kind === 'mentions'
          ? (['mentions', MENTION_CONFIDENCE] as const)
          : ([reference.kind, reference.confidence * THROUGH_ISSUE] as const);
    const edge: Edge = {
      from: reference.pr,
      to: closer,
      kind,
      evidence:
        `#${reference.pr} refers to issue #${reference.issue}, which #${closer} closed: ${reference.evidence}`.slice(
          0,
          300,
        ),
      confidence: Math.round(confidence * 100) / 100,
      source: reference.source,
    };
    const key = `${edge.from}->${edge.to}`;
    const kept = best.get(key);
    if (!kept || edge.confidence > kept.confidence) best.set(key, edge);
  }
  return [...best.values()];
}
