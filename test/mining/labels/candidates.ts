import { blameRemovedLines } from './blame-lines';
import { type LandedPr, messagesOf } from './landed-prs';
import { ShaIndex, scanText } from './text-refs';

/**
 * How a pair was found. ref: a text of one names the other by number or URL; sha: a text names a
 * commit of the other; issue: both name the same issue; blame: the later one removes or rewrites lines
 * the earlier one's commits wrote.
 */
export type Scan = 'ref' | 'sha' | 'issue' | 'blame';

/** A line of B's base that B removes or rewrites and that A's commits wrote. */
export interface OverlapLine {
  path: string;
  line: number;
  text: string;
}

/** A pair of merged PRs for a labeller to read: `from` (B) landed after `to` (A). */
export interface Candidate {
  from: number;
  to: number;
  scans: Scan[];
  overlap: OverlapLine[];
}

export interface ScanResult {
  candidates: Candidate[];
  /** Every text git holds for each PR: title, landing messages, messages of the commits it owns. */
  texts: Map<number, string[]>;
}

/** An issue named by more PRs than this is a tracker: naming it says nothing about any two of them. */
const ISSUE_CAP = 6;

/**
 * The label scan, independent of the miner and with no filter of its own: every reference any text
 * makes to another merged PR, every two PRs naming the same issue, and every pair where the later PR
 * removes or rewrites lines (whitespace ignored, moves and copies followed) that the earlier PR's
 * commits wrote, in any file. `pullNumbers` are all pull refs of the clone: a number among them that is
 * not merged names neither a merged PR nor an issue.
 */
export async function scanCandidates(
  clone: string,
  prs: readonly LandedPr[],
  pullNumbers: ReadonlySet<number>,
  options: { repo?: string; concurrency?: number; progress?: (done: number) => void } = {},
): Promise<ScanResult> {
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const owner = ownership(prs);
  const messages = await messagesOf(clone, [...owner.keys()]);
  const texts = new Map<number, string[]>();
  for (const pr of prs) {
    const own = [...pr.landingShas, ...pr.ownShas].filter((sha) => owner.get(sha) === pr.number);
    texts.set(
      pr.number,
      [...new Set([pr.title, ...own.map((sha) => messages.get(sha) ?? '')])].filter((text) => text.trim() !== ''),
    );
  }

  const found = new Map<string, Candidate>();
  const add = (a: number, b: number, scan: Scan, line?: OverlapLine) => {
    if (a === b) return;
    const [from, to] = later(byNumber.get(a) as LandedPr, byNumber.get(b) as LandedPr) ? [a, b] : [b, a];
    const key = `${from}->${to}`;
    const candidate = found.get(key) ?? { from, to, scans: [], overlap: [] };
    if (!candidate.scans.includes(scan)) candidate.scans.push(scan);
    if (line) candidate.overlap.push(line);
    found.set(key, candidate);
  };

  const shas = new ShaIndex(owner.keys());
  const issues = new Map<number, Set<number>>();
  for (const pr of prs) {
    for (const text of texts.get(pr.number) ?? []) {
      const refs = scanText(text, options.repo);
      for (const n of refs.numbers) {
        if (byNumber.has(n)) add(pr.number, n, 'ref');
        else if (!pullNumbers.has(n)) issues.set(n, (issues.get(n) ?? new Set()).add(pr.number));
      }
      for (const word of refs.hexWords)
        for (const sha of shas.withPrefix(word)) add(pr.number, owner.get(sha) as number, 'sha');
    }
  }
  for (const numbers of issues.values()) {
    if (numbers.size > ISSUE_CAP) continue;
    const list = [...numbers];
    for (const a of list) for (const b of list) if (a < b) add(a, b, 'issue');
  }

  let done = 0;
  await pool(prs, options.concurrency ?? 2, async (pr) => {
    for (const blamed of await blameRemovedLines(clone, pr.base, pr.tip)) {
      const writer = owner.get(blamed.sha);
      if (writer !== undefined && writer !== pr.number)
        add(pr.number, writer, 'blame', { path: blamed.path, line: blamed.line, text: blamed.text });
    }
    done += 1;
    options.progress?.(done);
  });
  const candidates = [...found.values()].sort((a, b) => a.from - b.from || a.to - b.to);
  for (const candidate of candidates) candidate.overlap.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
  return { candidates, texts };
}

/** B landed after A (by landing time; the higher number on a tie). */
export function later(b: LandedPr, a: LandedPr): boolean {
  return b.landedAt === a.landedAt ? b.number > a.number : b.landedAt > a.landedAt;
}

/**
 * Which PR each commit belongs to. Landing commits belong to the PR they landed; a commit several
 * PRs' heads hold (a merge-up PR carries other PRs' commits and merge commits, a stacked PR its base
 * PR's commits) belongs to the one that landed first, so its texts and lines are not credited twice.
 */
export function ownership(prs: readonly LandedPr[]): Map<string, number> {
  const byTime = [...prs].sort((a, b) => (later(a, b) ? 1 : -1));
  const owner = new Map<string, number>();
  for (const pr of byTime) for (const sha of pr.landingShas) if (!owner.has(sha)) owner.set(sha, pr.number);
  for (const pr of byTime) for (const sha of pr.ownShas) if (!owner.has(sha)) owner.set(sha, pr.number);
  return owner;
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, size) }, worker));
}
