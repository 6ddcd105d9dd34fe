import { git } from '../../../src/git';
import { mergedPullNumbers } from './merged-prs';

/** How a merged PR reached the default branch, as far as git shows it. */
export type Landing = 'merge' | 'fast-forward' | 'squash' | 'rebase';

/** A merged PR as the label scan reads it from a clone with pull refs, without the miner. */
export interface LandedPr {
  number: number;
  title: string;
  landing: Landing;
  /** Committer date of the last landing commit: what "earlier" and "later" mean between PRs. */
  landedAt: string;
  /** The landed change is `git diff base tip`. */
  base: string;
  tip: string;
  /** The commits that put the PR on the branch: its merge commit, its squash, or its replayed commits. */
  landingShas: string[];
  /** The PR's own commits (those of its pull head that the branch it landed on did not have). */
  ownShas: string[];
}

const PULL_HEAD = /^refs\/pull\/(\d+)\/head$/;
const SQUASH_SUBJECT = /\(#(\d+)\)$/;
const MERGE_PULL = /^Merge pull request #(\d+) /;
/** A PR whose pull head holds more commits than this was opened from a long-lived branch; its list is cut. */
const MAX_OWN = 300;
const FORMAT = '%H%x1f%P%x1f%cI%x1f%ae%x1f%aI%x1f%s';

interface Commit {
  sha: string;
  parents: string[];
  committedAt: string;
  /** Author e-mail, author date, subject: what a rebase keeps. */
  kept: string;
  subject: string;
}

/**
 * Every merged PR (merged-prs.ts decides which) with its landing commits, landing time and diff
 * range. Approximate where git cannot say more: a PR whose head is on the branch's first-parent line
 * (fast-forward) is taken to be its author's run of commits up to the head (see fastForward), and so
 * is one whose head is reachable but that no merge commit brought in; a rebase landing is the range from its first to its last replayed commit, which may hold
 * commits pushed between them. Besides the PRs merged-prs.ts finds, a PR whose pull ref is missing or
 * points past what was merged counts when a "Merge pull request #N" commit landed it. `skipped` names
 * PRs for which no landing commit was found.
 */
export async function readLandedPrs(clone: string): Promise<{ prs: LandedPr[]; skipped: number[] }> {
  const merged = await mergedPullNumbers(clone);
  const heads = new Map<number, string>();
  for (const line of (await git(clone, ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/pull/'])).split(
    '\n',
  )) {
    const [sha, ref] = line.split(' ');
    const n = PULL_HEAD.exec(ref ?? '')?.[1];
    if (n !== undefined) heads.set(Number(n), sha);
  }
  const log = await git(clone, ['log', `--format=${FORMAT}`, 'HEAD']);
  const commits = new Map<string, Commit>();
  const order: Commit[] = []; // newest first, as git log prints
  const copies = new Map<string, string[]>();
  for (const line of log.split('\n').filter(Boolean)) {
    const commit = parseCommit(line);
    commits.set(commit.sha, commit);
    order.push(commit);
    copies.set(commit.kept, [...(copies.get(commit.kept) ?? []), commit.sha]);
  }
  const mergersOf = new Map<string, Commit[]>();
  for (const commit of order)
    for (const parent of commit.parents.slice(1)) mergersOf.set(parent, [...(mergersOf.get(parent) ?? []), commit]);
  const bySquash = new Map<number, Commit[]>();
  for (const commit of order) {
    const n = Number(SQUASH_SUBJECT.exec(commit.subject.trim())?.[1]);
    if (merged.has(n)) bySquash.set(n, [commit, ...(bySquash.get(n) ?? [])]); // oldest first
  }
  const byKept = new Map<string, Commit>();
  for (const commit of order) byKept.set(commit.kept, commit); // the oldest wins: the first replay

  const firstParent = new Set((await git(clone, ['rev-list', '--first-parent', 'HEAD'])).split('\n').filter(Boolean));
  const graph: Graph = {
    commits,
    firstParent,
    pullHeads: new Set(heads.values()),
    mergersOf,
    bySquash,
    byKept,
    copies,
  };
  const prs: LandedPr[] = [];
  const skipped: number[] = [];
  for (const number of [...merged].sort((a, b) => a - b)) {
    const head = heads.get(number);
    const pr = await readOne(clone, number, head, graph);
    if (pr) prs.push(pr);
    else skipped.push(number);
  }
  // A few pull refs are missing from the bundles, and a pull ref may point past what was merged; a
  // "Merge pull request #N" commit still shows that PR N landed, and what it brought in.
  const landed = new Set([...prs.map((pr) => pr.number), ...skipped]);
  for (const merge of [...order].reverse()) {
    const number = Number(MERGE_PULL.exec(merge.subject)?.[1]);
    if (!number || landed.has(number) || merge.parents.length < 2) continue;
    landed.add(number);
    const title = (await bodyLine(clone, merge.sha)) || merge.subject;
    const own = await revList(clone, [merge.parents[1], `^${merge.parents[0]}`]);
    prs.push({
      number,
      title,
      landing: 'merge',
      landedAt: merge.committedAt,
      base: merge.parents[0],
      tip: merge.sha,
      landingShas: [merge.sha],
      ownShas: own,
    });
  }
  prs.sort((a, b) => a.number - b.number);
  return { prs, skipped };
}

interface Graph {
  commits: Map<string, Commit>;
  firstParent: Set<string>;
  pullHeads: Set<string>;
  mergersOf: Map<string, Commit[]>;
  bySquash: Map<number, Commit[]>;
  byKept: Map<string, Commit>;
  /** Branch commits by what a rebase keeps: more than one where the same change was applied again. */
  copies: Map<string, string[]>;
}

async function readOne(
  clone: string,
  number: number,
  head: string | undefined,
  graph: Graph,
): Promise<LandedPr | undefined> {
  const headCommit = head === undefined ? undefined : graph.commits.get(head);
  if (head !== undefined && headCommit) {
    if (graph.firstParent.has(head)) return fastForward(number, headCommit, graph);
    // The PR's own merge commit: one that took its head as a second parent, the one naming it if several did.
    const mergers = graph.mergersOf.get(head) ?? [];
    const merge = mergers.find((m) => mentions(m.subject, number)) ?? mergers[mergers.length - 1];
    if (merge) {
      const brought = await commitsOf(clone, await revList(clone, [head, `^${merge.parents[0]}`]));
      const own = await withoutBase(clone, brought, merge.parents[0], graph);
      const title = MERGE_PULL.test(merge.subject) ? await bodyLine(clone, merge.sha) : stripNumber(merge.subject);
      return {
        number,
        title: title || headCommit.subject,
        landing: 'merge',
        landedAt: merge.committedAt,
        base: merge.parents[0],
        tip: merge.sha,
        landingShas: [merge.sha],
        ownShas: own,
      };
    }
    return fastForward(number, headCommit, graph);
  }
  const unmerged = head === undefined ? [] : await commitsOf(clone, await revList(clone, [head, '--not', 'HEAD']));
  const squashes = graph.bySquash.get(number) ?? [];
  let landing: Commit[] = squashes;
  if (landing.length === 0 && headCommit === undefined && head !== undefined) landing = replayed(head, unmerged, graph);
  const own =
    landing.length === 0 ? [] : await withoutBase(clone, unmerged, landing[0].parents[0] ?? landing[0].sha, graph);
  if (landing.length === 0) return undefined;
  const first = landing[0];
  const last = landing[landing.length - 1];
  const landingKind: Landing = squashes.length === 1 ? 'squash' : 'rebase';
  const title = squashes.length > 0 ? stripNumber(last.subject) : last.subject;
  return {
    number,
    title,
    landing: landingKind,
    landedAt: last.committedAt,
    base: first.parents[0] ?? first.sha,
    tip: last.sha,
    landingShas: landing.map((c) => c.sha),
    ownShas: own,
  };
}

/**
 * The commits GitHub's rebase button put on the branch for a PR: the copy of its head, and going back
 * along both first-parent lines while each branch commit is a copy of the PR's commit at that step
 * (same author and subject). Oldest first.
 */
function replayed(head: string, unmerged: Commit[], graph: Graph): Commit[] {
  const bySha = new Map(unmerged.map((c) => [c.sha, c]));
  const run: Commit[] = [];
  let pr = bySha.get(head);
  let branch = pr ? graph.byKept.get(pr.kept) : undefined;
  while (pr && branch && (run.length === 0 ? branch.kept === pr.kept : sameWork(branch, pr)) && !run.includes(branch)) {
    run.push(branch);
    pr = bySha.get(pr.parents[0] ?? '');
    branch = graph.commits.get(branch.parents[0] ?? '');
  }
  return run.reverse();
}

/**
 * A PR's commits less those whose copy (same author, author date, subject) the base already had:
 * history the PR was based on that the branch has since rewritten or rebased, not the PR's work.
 */
async function withoutBase(clone: string, commits: Commit[], base: string, graph: Graph): Promise<string[]> {
  const own: string[] = [];
  for (const commit of commits) {
    const copies = (graph.copies.get(commit.kept) ?? []).filter((sha) => sha !== commit.sha);
    let inBase = false;
    for (const copy of copies) if (!inBase) inBase = await isAncestor(clone, copy, base);
    if (!inBase) own.push(commit.sha);
  }
  return own;
}

async function isAncestor(clone: string, sha: string, of: string): Promise<boolean> {
  try {
    await git(clone, ['merge-base', '--is-ancestor', sha, of]);
    return true;
  } catch {
    return false;
  }
}

/** Same author and subject: below a replayed head, a hand rebase may have reset author dates. */
function sameWork(a: Commit, b: Commit): boolean {
  const [emailA, , subjectA] = a.kept.split('\x1f');
  const [emailB, , subjectB] = b.kept.split('\x1f');
  return emailA === emailB && subjectA === subjectB;
}

/** Commits (any, reachable or not) with what a rebase keeps, in the order given. */
async function commitsOf(clone: string, shas: readonly string[]): Promise<Commit[]> {
  if (shas.length === 0) return [];
  const out = await git(clone, ['log', '--no-walk=unsorted', '--stdin', `--format=${FORMAT}`], {
    input: shas.join('\n') + '\n',
  });
  return out.split('\n').filter(Boolean).map(parseCommit);
}

function parseCommit(line: string): Commit {
  const [sha, parents, committedAt, email, authoredAt, subject] = line.split('\x1f');
  return {
    sha,
    parents: parents ? parents.split(' ') : [],
    committedAt,
    kept: `${email}\x1f${authoredAt}\x1f${subject}`,
    subject,
  };
}

/**
 * A PR whose head is on the branch itself (fast-forward, or pushed and then opened as a PR). Where it
 * started is not in git: taken as the run of single-parent commits before the head by the head's
 * author, stopping at another PR's head.
 */
function fastForward(number: number, head: Commit, graph: Graph): LandedPr {
  const own = [head];
  const author = head.kept.split('\x1f')[0];
  for (
    let at = graph.commits.get(head.parents[0] ?? '');
    at && own.length < MAX_OWN;
    at = graph.commits.get(at.parents[0] ?? '')
  ) {
    if (at.parents.length !== 1 || at.kept.split('\x1f')[0] !== author || graph.pullHeads.has(at.sha)) break;
    own.push(at);
  }
  const first = own[own.length - 1];
  return {
    number,
    title: head.subject,
    landing: 'fast-forward',
    landedAt: head.committedAt,
    base: first.parents[0] ?? first.sha,
    tip: head.sha,
    landingShas: own.map((c) => c.sha),
    ownShas: own.map((c) => c.sha),
  };
}

function mentions(subject: string, number: number): boolean {
  return new RegExp(`#${number}\\b`).test(subject);
}

function stripNumber(subject: string): string {
  return subject.replace(/\s*\(#\d+\)$/, '');
}

/** GitHub's merge commits carry the PR title as the first line of their body. */
async function bodyLine(clone: string, sha: string): Promise<string> {
  const body = await git(clone, ['log', '-1', '--format=%b', sha]);
  return (
    body
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}

async function revList(clone: string, args: string[]): Promise<string[]> {
  const out = await git(clone, ['rev-list', `--max-count=${MAX_OWN}`, ...args]);
  return out.split('\n').filter(Boolean);
}

/** Full messages of many commits in one git call. */
export async function messagesOf(clone: string, shas: readonly string[]): Promise<Map<string, string>> {
  const messages = new Map<string, string>();
  if (shas.length === 0) return messages;
  const out = await git(clone, ['log', '--no-walk=unsorted', '--stdin', '--format=%H%x1f%B%x1e'], {
    input: shas.join('\n') + '\n',
  });
  for (const record of out.split('\x1e')) {
    const at = record.indexOf('\x1f');
    if (at > 0) messages.set(record.slice(0, at).trim(), record.slice(at + 1).trim());
  }
  return messages;
}
