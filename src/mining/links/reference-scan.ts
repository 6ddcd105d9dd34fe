import type { EdgeKind } from '../../schemas';

interface Rule {
  kind: EdgeKind;
  confidence: number;
  /** Tested against the words just before the reference. */
  pattern: RegExp;
}

/** First match wins, so the specific kinds come before the generic ones. */
const RULES: Rule[] = [
  {
    kind: 'restores',
    confidence: 0.9,
    pattern: /\b(restor(e|es|ed|ing)|reappl(y|ies|ied|ying)|re-?land(s|ed|ing)?)\b/i,
  },
  // 'Revert "Revert "X (#12)""' undoes the revert of #12: it brings #12 back. Only inside the inner
  // title: in 'Revert "Revert "X (#12)" (#13)"' this reverts #13, the revert itself.
  { kind: 'restores', confidence: 0.9, pattern: /\brevert\W+revert\s+"[^"]*$/i },
  { kind: 'reverts', confidence: 0.95, pattern: /\brevert(s|ed|ing)?\b/i },
  // "as it was before <sha>": the change undoes what that commit did.
  { kind: 'reverts', confidence: 0.85, pattern: /\b(as (it|they) (was|were)|behaviou?r|state) before\s*$/i },
  {
    kind: 'regression-of',
    confidence: 0.95,
    pattern: /\b(regress(ion|ions|ed)?|broken (by|in|since)|broke in|introduced (in|by|with)|caused by)\b/i,
  },
  {
    kind: 'follow-up',
    confidence: 0.9,
    pattern: /\b(follow(s|ing)?[- ]?ups?( to| of| on)?|follows? on from|builds? (up)?on|extends?|extending)\b/i,
  },
  // Tests written for what another PR changed are written against it.
  {
    kind: 'follow-up',
    confidence: 0.8,
    pattern: /\b(add(s|ed|ing)?|more|new|write|wrote)\s+(unit\s+)?tests?\s+(for|of|covering)\s*$/i,
  },
  // "fixes" must sit right before the number: "Fix the crash; see #12" is only a mention.
  { kind: 'fixes', confidence: 0.8, pattern: /\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s*(commit\s+)?$/i },
];

const MENTION = { kind: 'mentions' as EdgeKind, confidence: 0.5 };

/**
 * The ways text names another PR or issue: a URL to a pull or issue page, "owner/repo#12", "#12",
 * and "commit <sha>" (git revert and cherry-pick write those). "page#12" (an anchor) and "&#39;"
 * (an entity) are not references.
 */
const REFERENCE = new RegExp(
  [
    String.raw`\bhttps?://[^\s/]+/(?<urlOwner>[\w.-]+)/(?<urlRepo>[\w.-]+)/(?:pull|issues)/(?<urlNumber>\d+)\b`,
    String.raw`(?<![\w/.-])(?<owner>[A-Za-z0-9][\w.-]*)/(?<repo>[\w.-]+)#(?<qualified>\d+)\b`,
    String.raw`(?<![\w/&#])#(?<number>\d+)\b`,
    String.raw`\bhttps?://[^\s/]+/(?<shaOwner>[\w.-]+)/(?<shaRepo>[\w.-]+)/commit/(?<urlSha>[0-9a-f]{7,40})\b`,
    String.raw`\b[Cc]ommit\s+(?<sha>[0-9a-fA-F]{7,40})\b`,
    // A bare hex word only counts when it names a commit of the repository (the linker checks).
    String.raw`(?<![\w/#.:=@-])(?<bareSha>[0-9a-f]{7,40})(?![\w/@-])`,
  ].join('|'),
  'g',
);

/** How far back from a reference its qualifying words may be. */
const WINDOW = 80;
const MAX_EVIDENCE = 200;

/** GitHub's own "Merge pull request #N from …" lines say how a PR landed, not what it depends on. */
const MECHANICAL = /^Merge (pull request|branch|remote-tracking branch) /;

export interface ScannedReference {
  /** A PR or issue number, or (for "commit <sha>") a commit. */
  target: { number: number } | { sha: string; bare?: boolean };
  /** "owner/name" when the reference names a repository; lower case. */
  repo?: string;
  kind: EdgeKind;
  confidence: number;
  /** The sentence the reference stands in. */
  evidence: string;
  /** The reference's offsets in the scanned text. */
  start: number;
  end: number;
}

/** Sentences of a text with their offsets, skipping the mechanical merge lines. */
function sentences(text: string): { text: string; start: number }[] {
  const found: { text: string; start: number }[] = [];
  let lineStart = 0;
  for (const line of text.split('\n')) {
    if (!MECHANICAL.test(line.trim())) {
      let from = 0;
      for (const gap of [...line.matchAll(/(?<=[.!?;])\s+/g), { index: line.length, 0: '' }]) {
        const piece = line.slice(from, gap.index);
        const lead = piece.length - piece.trimStart().length;
        if (piece.trim() !== '') found.push({ text: piece.trim(), start: lineStart + from + lead });
        from = (gap.index ?? line.length) + gap[0].length;
      }
    }
    lineStart += line.length + 1;
  }
  return found;
}

/**
 * Inside the quoted title of `Revert "…"`: the number there is one the reverted change's title named
 * ('Revert "Add tests for #842"' reverts the tests, not #842), unless it closes the title as a squash
 * landing's "(#N)" does.
 */
const IN_REVERTED_TITLE = /\brevert\w*\s+"[^"]*$/i;
const CLOSES_TITLE = (before: string, after: string) => before.endsWith('(') && after.startsWith(')"');

function classify(before: string, after: string): { kind: EdgeKind; confidence: number } {
  if (IN_REVERTED_TITLE.test(before) && !CLOSES_TITLE(before, after)) return MENTION;
  const rule = RULES.find((candidate) => candidate.pattern.test(before));
  return rule ? { kind: rule.kind, confidence: rule.confidence } : MENTION;
}

/** Every reference in `text`, classified by the words just before it. */
export function scanReferences(text: string): ScannedReference[] {
  const references: ScannedReference[] = [];
  for (const sentence of sentences(text)) {
    let previousEnd = 0;
    for (const match of sentence.text.matchAll(REFERENCE)) {
      const at = match.index ?? 0;
      // Only the words since the previous reference qualify this one: "Follow-up to #4, fixes #9".
      const before = sentence.text.slice(Math.max(previousEnd, at - WINDOW), at);
      previousEnd = at + match[0].length;
      const groups = match.groups ?? {};
      // English words can be hex ("decade", "effaced"); a sha of 7+ digits nearly always mixes in both.
      if (groups.bareSha !== undefined && !(/\d/.test(groups.bareSha) && /[a-f]/.test(groups.bareSha))) continue;
      const owner = groups.urlOwner ?? groups.owner ?? groups.shaOwner;
      const repoName = groups.urlRepo ?? groups.repo ?? groups.shaRepo;
      const number = groups.urlNumber ?? groups.qualified ?? groups.number;
      const sha = (groups.urlSha ?? groups.sha ?? groups.bareSha)?.toLowerCase();
      references.push({
        target:
          number !== undefined
            ? { number: Number(number) }
            : { sha: sha as string, ...(groups.bareSha ? { bare: true } : {}) },
        repo: owner !== undefined ? `${owner}/${repoName}`.toLowerCase() : undefined,
        ...classify(before, sentence.text.slice(previousEnd, previousEnd + 2)),
        evidence: sentence.text.slice(0, MAX_EVIDENCE),
        start: sentence.start + at,
        end: sentence.start + previousEnd,
      });
    }
  }
  return references;
}
