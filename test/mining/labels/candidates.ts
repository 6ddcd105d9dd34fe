import type { PullRequestRecord } from '../../../src/schemas';
import { codeHistoryEdges } from '../../../src/mining/code-history';
import { scanReferences } from '../../../src/mining/reference-scan';
import { revertReferences } from '../../../src/mining/revert-titles';

/** A pair of PRs worth a human look, and every reason any scan had to propose it. */
export interface Candidate {
  from: number;
  to: number;
  why: string[];
}

/**
 * The wide scan behind the hand labels: far looser than the miner, so that labels are not limited
 * to what the miner happens to find. Any reference by number or by any hex word that names another
 * PR's commit, any two PRs naming the same issue, any title revert, and any blame overlap within a
 * year. `from` is the later PR.
 */
export async function candidatePairs(clone: string, prs: PullRequestRecord[], pullNumbers: ReadonlySet<number>): Promise<Candidate[]> {
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const owner = new Map<string, number>();
  for (const pr of prs) for (const sha of [pr.mergeSha, ...(pr.commitShas ?? [])]) owner.set(sha, pr.number);
  const shas = [...owner.keys()];
  const found = new Map<string, Candidate>();
  const add = (a: number, b: number, why: string) => {
    if (a === b || !byNumber.has(a) || !byNumber.has(b)) return;
    const [from, to] = (byNumber.get(a)?.mergedAt ?? '') >= (byNumber.get(b)?.mergedAt ?? '') ? [a, b] : [b, a];
    const key = `${from}->${to}`;
    const candidate = found.get(key) ?? { from, to, why: [] };
    if (!candidate.why.includes(why)) candidate.why.push(why);
    found.set(key, candidate);
  };
  const issues = new Map<number, Set<number>>();
  for (const pr of prs) {
    const texts = [pr.title, pr.body, ...pr.messages, ...(pr.comments ?? []).map((c) => c.body)];
    for (const text of texts) {
      for (const reference of scanReferences(text)) {
        if ('number' in reference.target) {
          const n = reference.target.number;
          if (byNumber.has(n)) add(pr.number, n, `#${n}: ${reference.evidence.slice(0, 120)}`);
          else if (!pullNumbers.has(n)) issues.set(n, (issues.get(n) ?? new Set()).add(pr.number));
        }
      }
      for (const word of text.match(/\b[0-9a-f]{7,40}\b/gi) ?? []) {
        const hits = new Set(shas.filter((sha) => sha.startsWith(word.toLowerCase())).map((sha) => owner.get(sha) as number));
        if (hits.size === 1) add(pr.number, [...hits][0], `sha ${word}`);
      }
    }
    for (const issue of pr.closingIssues ?? []) issues.set(issue, (issues.get(issue) ?? new Set()).add(pr.number));
  }
  for (const [issue, numbers] of issues) {
    const list = [...numbers];
    if (list.length > 6) continue; // a tracking issue named by many PRs says nothing about any pair
    for (const a of list) for (const b of list) if (a < b) add(a, b, `both name issue #${issue}`);
  }
  for (const edge of revertReferences(prs, new Set(byNumber.keys()))) add(edge.from, edge.to, `revert: ${edge.evidence}`);
  for (const edge of await codeHistoryEdges(clone, prs, prs, { windowDays: 365 })) add(edge.from, edge.to, `blame: ${edge.evidence}`);
  return [...found.values()].sort((a, b) => a.from - b.from || a.to - b.to);
}
