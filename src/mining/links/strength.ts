import type { Edge, PullRequestRecord, Strength } from '../../schemas';

/** Words of a PR about text, not behaviour: a typo, a message, a docstring, a changelog line. */
const THIN_WORDS =
  /\b(typos?|spelling|misspell(ed|ing)?|wording|grammar|docstrings?|comments?|changelog|error messages?)\b/i;

/** What each kind of words says about the dependency, when nothing thinner is known. */
const BY_KIND: Record<Edge['kind'], [Strength, string]> = {
  reverts: ['strong', 'reverts it'],
  restores: ['strong', 'restores it'],
  'regression-of': ['strong', 'fixes a defect it introduced'],
  fixes: ['strong', 'fixes its work'],
  'follow-up': ['strong', 'continues or extends its work'],
  'code-history': ['strong', 'changes code it wrote'],
  mentions: ['weak', 'only names it'],
  'shares-files': ['weak', 'only edits the same files'],
};

/** Only tests, or words about text: a small follow-up, real but thin. */
export function thinFollowUp(pr: PullRequestRecord | undefined): string | undefined {
  if (!pr) return undefined;
  if (pr.files.length > 0 && !pr.files.some((file) => file.kind === 'code')) return 'changes only tests or docs';
  if (THIN_WORDS.test(pr.title)) return 'is about text (a typo, a message, a comment)';
  return undefined;
}

/**
 * Every edge with a strength and why. An edge that knows its own (the code-history and deprecation
 * rules set theirs) keeps it; reverts and restores are strong whatever the PR; other words are weak
 * where the later PR is a thin follow-up.
 */
export function withStrength(edges: readonly Edge[], byNumber: ReadonlyMap<number, PullRequestRecord>): Edge[] {
  return edges.map((edge) => {
    if (edge.strength) return edge;
    const [strength, why] = BY_KIND[edge.kind];
    const thin =
      strength === 'strong' && edge.kind !== 'reverts' && edge.kind !== 'restores'
        ? thinFollowUp(byNumber.get(edge.from))
        : undefined;
    return thin
      ? { ...edge, strength: 'weak', strengthWhy: `#${edge.from} ${thin}` }
      : { ...edge, strength, strengthWhy: `#${edge.from} ${why}` };
  });
}

/** Weakest first. */
const STRENGTHS: readonly Strength[] = ['weak', 'strong'];

/** Whether an edge is at least `min` strong; an edge mined before strengths were known counts as strong. */
export function atLeast(edge: Pick<Edge, 'strength'>, min: Strength): boolean {
  return STRENGTHS.indexOf(edge.strength ?? 'strong') >= STRENGTHS.indexOf(min);
}

/** The weaker of two strengths. */
export const weaker = (a: Strength, b: Strength): Strength => (STRENGTHS.indexOf(a) <= STRENGTHS.indexOf(b) ? a : b);
