import type { Edge, PullRequestRecord } from '../../schemas';
import { git } from '../../git';
import { diffLines } from './diff-lines';

/** Lines this short ("}", "return;", blank) recur everywhere: they say nothing about where code came from. */
const MIN_LINE = 8;
/** A PR that adds back most of what a revert took out re-applies the reverted work. */
const MOST = 0.5;
const RESTORES_CONFIDENCE = 0.85;

const codePaths = (pr: PullRequestRecord) =>
  pr.files.filter((file) => file.kind === 'code' && !file.binary).map((file) => file.path);

/** The distinct non-trivial lines a diff adds ('+') or removes ('-'), trimmed. */
function changedLines(diff: string, sign: '+' | '-'): Set<string> {
  const found = new Set<string>();
  for (const line of diffLines(diff)) {
    const text = line.text.trim();
    if (line.sign === sign && text.length >= MIN_LINE) found.add(text);
  }
  return found;
}

async function diffOf(clone: string, pr: PullRequestRecord, paths: string[]): Promise<string> {
  return git(clone, ['diff', '-U0', '--no-color', '--no-ext-diff', pr.baseSha, pr.mergeSha, '--', ...paths]).catch(
    () => '',
  );
}

/**
 * Re-applications: after revert R of A, a later PR B that adds back most of the lines R removed
 * restores A, and depends on R too (it is written against the reverted code). Only PRs merged within
 * `windowMs` after R that change one of R's code files are read.
 */
export async function restoreEdges(
  clone: string,
  prs: readonly PullRequestRecord[],
  reverts: readonly Edge[],
  windowMs: number,
): Promise<Edge[]> {
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const edges: Edge[] = [];
  for (const revert of reverts) {
    const r = byNumber.get(revert.from);
    if (!r) continue;
    const paths = codePaths(r);
    const removed = changedLines(await diffOf(clone, r, paths), '-');
    if (removed.size === 0) continue;
    const after = Date.parse(r.mergedAt);
    const candidates = prs.filter((b) => {
      const at = Date.parse(b.mergedAt);
      return (
        b.number !== r.number &&
        b.number !== revert.to &&
        at > after &&
        at - after <= windowMs &&
        codePaths(b).some((path) => paths.includes(path))
      );
    });
    for (const b of candidates) {
      const added = changedLines(await diffOf(clone, b, paths), '+');
      const back = [...removed].filter((line) => added.has(line)).length;
      if (back / removed.size < MOST) continue;
      const evidence = `#${b.number} adds back ${back} of the ${removed.size} lines #${r.number} took out when it reverted #${revert.to}`;
      for (const to of [revert.to, r.number])
        edges.push({
          from: b.number,
          to,
          kind: 'restores',
          evidence,
          confidence: RESTORES_CONFIDENCE,
          source: { field: 'files', start: 0, end: 0 },
        });
    }
  }
  return edges;
}
