import { EdgeSchema, type Edge, type EdgeKind, type PullRequest } from '../schemas';

interface Rule {
  kind: EdgeKind;
  confidence: number;
  /** Tested against the words just before the reference. */
  pattern: RegExp;
}

/** First match wins, so the specific kinds come before the generic ones. */
const RULES: Rule[] = [
  { kind: 'restores', confidence: 0.9, pattern: /\b(restor(e|es|ed|ing)|reappl(y|ies|ied|ying)|re-?land(s|ed|ing)?)\b/i },
  { kind: 'reverts', confidence: 0.95, pattern: /\brevert(s|ed|ing)?\b/i },
  { kind: 'regression-of', confidence: 0.95, pattern: /\b(regress(ion|ions|ed)?|broken (by|in)|broke in)\b/i },
  {
    kind: 'follow-up',
    confidence: 0.9,
    pattern: /\b(follow(s|ing)?[- ]?ups?( to| of| on)?|follows? on from|builds? (up)?on|extends?|extending)\b/i,
  },
  // "fixes" must sit right before the number: "Fix the crash; see #12" is only a mention.
  { kind: 'fixes', confidence: 0.8, pattern: /\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s*$/i },
];

const MENTION: Omit<Rule, 'pattern'> = { kind: 'mentions', confidence: 0.5 };

/** "#12", but not "owner/repo#12" (another repository), "page#12" (an anchor) or "&#39;" (an entity). */
const REFERENCE = /(?<![\w/&])#(\d+)\b/g;

/** How far back from a reference its qualifying words may be. */
const WINDOW = 80;
const MAX_EVIDENCE = 200;

/** GitHub's own "Merge pull request #N from …" lines say how a PR landed, not what it depends on. */
const MECHANICAL = /^Merge (pull request|branch) /;

function snippets(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !MECHANICAL.test(line.trim()))
    .flatMap((line) => line.split(/(?<=[.!?;])\s+/))
    .map((snippet) => snippet.trim())
    .filter((snippet) => snippet !== '');
}

function classify(before: string): Omit<Rule, 'pattern'> {
  return RULES.find((rule) => rule.pattern.test(before)) ?? MENTION;
}

function referencesIn(pr: PullRequest): Edge[] {
  const edges: Edge[] = [];
  for (const snippet of [pr.title, pr.body, ...pr.messages].flatMap(snippets)) {
    let previousEnd = 0;
    for (const match of snippet.matchAll(REFERENCE)) {
      const start = match.index ?? 0;
      // Only the words since the previous reference qualify this one: "Follow-up to #4, fixes #9".
      const before = snippet.slice(Math.max(previousEnd, start - WINDOW), start);
      previousEnd = start + match[0].length;
      const { kind, confidence } = classify(before);
      edges.push({ from: pr.number, to: Number(match[1]), kind, confidence, evidence: snippet.slice(0, MAX_EVIDENCE) });
    }
  }
  return edges;
}

/**
 * Dependency edges between mined PRs, read from what their titles, bodies and commit messages say.
 * Numbers that are not mined PRs are issues and are dropped; each (from, to) pair keeps its
 * strongest edge.
 */
export function extractEdges(prs: PullRequest[]): Edge[] {
  const mined = new Set(prs.map((pr) => pr.number));
  const strongest = new Map<string, Edge>();
  for (const edge of prs.flatMap(referencesIn)) {
    if (edge.from === edge.to || !mined.has(edge.to)) continue;
    const key = `${edge.from}->${edge.to}`;
    const kept = strongest.get(key);
    if (!kept || edge.confidence > kept.confidence) strongest.set(key, edge);
  }
  return [...strongest.values()]
    .sort((a, b) => a.from - b.from || a.to - b.to)
    .map((edge) => EdgeSchema.parse(edge));
}
