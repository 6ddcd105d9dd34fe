import { EdgeSchema, type Edge, type EdgeSource, type PullRequestRecord } from '../../schemas';
import { splitMessage } from '../landings/commit-log';
import { issueMediatedEdges, type IssueReference } from './issue-links';
import { recognizeLanding } from '../landings/landing';
import { isBot } from '../chains/filters';
import { scanReferences, type ScannedReference } from './reference-scan';
import { revertReferences } from './revert-titles';
import { blankNoise } from './text-noise';

/** References in comments are other people's words about the PR: weaker than the author's own. */
const COMMENT_WEIGHT = 0.8;

/** "Fix #N" naming a PR that shares no code with the fix: the number most likely names an issue elsewhere. */
const UNSHARED_FIX_CONFIDENCE = 0.5;

/** A file's name without folders and extensions: `tests/test_cli.py` → `test_cli`. */
const stem = (path: string) => (path.split('/').pop() ?? '').replace(/\..*$/, '').toLowerCase();

/**
 * A fix of a PR's work changes some of the code or tests that PR changed, or tests named after its
 * code (`test_cli.py`, `cli_test.go`, `CliTest.java` for `cli`). Unknown files (none listed) do not refute it.
 */
const sharesWork = (b: PullRequestRecord, a: PullRequestRecord) => {
  if (a.files.length === 0 || b.files.length === 0) return true;
  const work = (pr: PullRequestRecord) => pr.files.filter((file) => file.kind !== 'other');
  const paths = new Set(work(a).map((file) => file.path));
  const stems = work(a)
    .filter((file) => file.kind === 'code')
    .map((file) => stem(file.path))
    .filter((name) => name.length >= 3);
  return work(b).some(
    (file) => paths.has(file.path) || (file.kind === 'test' && stems.some((name) => stem(file.path).includes(name))),
  );
};

/** A mention known only from GitHub's timeline: no words to tell its kind. */
const CROSS_REFERENCE_CONFIDENCE = 0.4;

/** What the references of a set of PRs pointed at, counted once per (PR, target) pair. */
interface ReferenceTally {
  /** References to another mined PR. */
  pr: number;
  /** PRs the source knows but that did not land on the mined branch (open, closed, elsewhere). */
  unmergedPr: number;
  issue: number;
  /** References into other repositories: kept out of chains, which replay in one repository. */
  otherRepo: number;
  /** "commit <sha>" that no mined PR holds. */
  unknownCommit: number;
  self: number;
}

export interface LinkOptions {
  /** "owner/name" of the mined repository, so that "owner/name#12" and its URLs count as local. */
  repo?: string;
  /** Every number the source knows to be a PR, merged or not (API listing, refs/pull/N/head). */
  pullNumbers?: ReadonlySet<number>;
}

interface PrText {
  text: string;
  source: Pick<EdgeSource, 'field' | 'index'>;
  weight: number;
}

/**
 * Where PR texts are, in the order their references are read. A commit message that is another mined
 * PR's landing ("Title (#12)", "Merge pull request #12") came in with a merge-up and is that PR's text.
 */
function prTexts(pr: PullRequestRecord, mined: ReadonlySet<number>): PrText[] {
  const othersLanding = (text: string) => {
    const number = recognizeLanding(splitMessage(text).subject, 2)?.number;
    return number !== undefined && number !== pr.number && mined.has(number);
  };
  const title = { text: pr.title, source: { field: 'title' as const }, weight: 1 };
  // A bot's PR says in its title what it carries ("[Backport] X (#123)"); its body and commits paste
  // others' words (a dependency bump's release notes), which say nothing of this repository's PRs.
  if (isBot(pr)) return [title];
  return [
    title,
    { text: blankNoise(pr.body), source: { field: 'body' as const }, weight: 1 },
    ...pr.messages.flatMap((text, index) =>
      othersLanding(text) ? [] : [{ text: blankNoise(text), source: { field: 'message' as const, index }, weight: 1 }],
    ),
    // Indexed as stored (a source names its comment), bots' comments (coverage reports naming commits) left out.
    ...(pr.comments ?? []).flatMap((comment, index) =>
      isBot({ author: comment.author })
        ? []
        : [{ text: blankNoise(comment.body), source: { field: 'comment' as const, index }, weight: COMMENT_WEIGHT }],
    ),
  ];
}

/** Commit SHAs (full, and by any prefix of 7 or more) to the PR that holds them. */
class CommitIndex {
  private readonly byPrefix = new Map<string, { sha: string; number: number }[]>();

  constructor(prs: readonly PullRequestRecord[]) {
    for (const pr of prs) {
      for (const sha of new Set([pr.mergeSha, ...(pr.commitShas ?? [])])) {
        const key = sha.slice(0, 7);
        this.byPrefix.set(key, [...(this.byPrefix.get(key) ?? []), { sha, number: pr.number }]);
      }
    }
  }

  /** The one PR a SHA or SHA prefix names; undefined when none or several do. */
  find(sha: string): number | undefined {
    const numbers = new Set(
      (this.byPrefix.get(sha.slice(0, 7)) ?? []).filter((c) => c.sha.startsWith(sha)).map((c) => c.number),
    );
    return numbers.size === 1 ? [...numbers][0] : undefined;
  }
}

/**
 * Dependency edges between mined PRs, read from what their titles, bodies, commit messages and
 * comments say about each other, and a tally of what the other references pointed at. Numbers that
 * are not mined PRs are issues unless the source knows them as PRs; each (from, to) pair keeps its
 * strongest edge.
 */
export function linkPullRequests(
  prs: readonly PullRequestRecord[],
  opts: LinkOptions = {},
): { edges: Edge[]; tally: ReferenceTally } {
  const mined = new Set(prs.map((pr) => pr.number));
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const commits = new CommitIndex(prs);
  const repo = opts.repo?.toLowerCase();
  const tally: ReferenceTally = { pr: 0, unmergedPr: 0, issue: 0, otherRepo: 0, unknownCommit: 0, self: 0 };
  const strongest = new Map<string, Edge>();
  const counted = new Set<string>();
  const count = (kind: keyof ReferenceTally, from: number, target: unknown) => {
    const key = `${kind} ${from} ${JSON.stringify(target)}`;
    if (!counted.has(key)) tally[kind] += 1;
    counted.add(key);
  };

  const resolve = (reference: ScannedReference): number | keyof ReferenceTally | undefined => {
    if (reference.repo !== undefined && reference.repo !== repo) return 'otherRepo';
    // A bare hex word that names no mined commit is most likely not a commit at all.
    if ('sha' in reference.target)
      return commits.find(reference.target.sha) ?? (reference.target.bare ? undefined : 'unknownCommit');
    const { number } = reference.target;
    if (mined.has(number)) return number;
    return opts.pullNumbers?.has(number) ? 'unmergedPr' : 'issue';
  };

  const keep = (edge: Edge) => {
    const key = `${edge.from}->${edge.to}`;
    const kept = strongest.get(key);
    if (!kept || edge.confidence > kept.confidence) strongest.set(key, edge);
  };
  const issueReferences: IssueReference[] = [];
  for (const pr of prs) {
    const texts = prTexts(pr, mined);
    for (const { text, source, weight } of texts) {
      for (const reference of scanReferences(text)) {
        const target = resolve(reference);
        if (target === undefined) continue;
        if (target === 'issue' && 'number' in reference.target) {
          const { kind, confidence, evidence, start, end } = reference;
          issueReferences.push({
            pr: pr.number,
            issue: reference.target.number,
            kind,
            confidence: confidence * weight,
            evidence,
            source: { ...source, start, end },
          });
        }
        if (typeof target === 'string') {
          count(target, pr.number, [reference.repo, reference.target]);
          continue;
        }
        if (target === pr.number) {
          count('self', pr.number, target);
          continue;
        }
        count('pr', pr.number, target);
        // Closing words fit issues; said of a PR, they mean a fix of its work only if the two share code.
        const unshared = reference.kind === 'fixes' && !sharesWork(pr, byNumber.get(target) as PullRequestRecord);
        const edge: Edge = {
          from: pr.number,
          to: target,
          kind: unshared ? 'mentions' : reference.kind,
          evidence: reference.evidence,
          confidence: Math.round((unshared ? UNSHARED_FIX_CONFIDENCE : reference.confidence) * weight * 100) / 100,
          source: { ...source, start: reference.start, end: reference.end },
        };
        keep(edge);
      }
    }
  }
  for (const edge of revertReferences(prs, mined)) keep(edge);
  for (const pr of prs) {
    for (const issue of pr.closingIssues ?? []) {
      issueReferences.push({
        pr: pr.number,
        issue,
        kind: 'fixes',
        confidence: 0.9,
        evidence: `GitHub links #${pr.number} as closing #${issue}`,
        source: { field: 'cross-reference', start: 0, end: 0 },
      });
    }
  }
  for (const edge of issueMediatedEdges(prs, issueReferences))
    if (!strongest.has(`${edge.from}->${edge.to}`)) keep(edge);
  // GitHub's word that another PR mentioned this one: the weakest evidence, for links whose text
  // the miner never saw (comments past the pages read, edited descriptions).
  for (const pr of prs) {
    for (const from of pr.mentionedBy ?? []) {
      const key = `${from}->${pr.number}`;
      if (from === pr.number || !mined.has(from) || strongest.has(key)) continue;
      count('pr', from, pr.number);
      strongest.set(key, {
        from,
        to: pr.number,
        kind: 'mentions',
        evidence: `GitHub lists #${from} as mentioning #${pr.number}`,
        confidence: CROSS_REFERENCE_CONFIDENCE,
        source: { field: 'cross-reference', start: 0, end: 0 },
      });
    }
  }
  const edges = [...strongest.values()]
    .sort((a, b) => a.from - b.from || a.to - b.to)
    .map((edge) => EdgeSchema.parse(edge));
  return { edges, tally };
}
