import { git } from '../../git';
import type { Edge, PullRequestRecord } from '../../schemas';

/**
 * Branch syncs: a PR that merges one branch into another ("Merge 3.1.x into main", "Sync develop with
 * master", a merge-up) carries others' work, none of its own.
 */
const BRANCH_SYNC =
  /^(merge|sync)\b(?! pull request)[^\n]*\b(into|to|with|from)\s+['"`]?[\w./-]*\b(main|master|develop|dev|stable|release|trunk|\d+(\.\d+)*(\.x)?|v\d[\w.-]*)['"`]?\s*$|^merge[- ]up\b|^merge (branch|remote-tracking branch) ['"]?[\w./-]+['"]?$/i;
/** A backport says so in its title: "[3.1.x] X", "Backport #12 to 2.x", "X (backport)". */
const BACKPORT = /^\[?\s*backport|\bback-?port(ed|s)?\b|^\[(v?\d+(\.\d+)*(\.x)?|stable|release[\w.-]*)\]/i;
/** `git cherry-pick -x` leaves this line. */
const CHERRY_PICKED = /\(cherry picked from commit ([0-9a-f]{7,40})\)/gi;

function isBranchSync(pr: Pick<PullRequestRecord, 'title'>): boolean {
  return BRANCH_SYNC.test(pr.title.trim());
}

export interface Copies {
  /** A PR landed again (backport, cherry-pick, the same patch twice) → the PR that landed it first. */
  copyOf: Map<number, number>;
  /** Why each copy is one. */
  why: Map<number, string>;
  /** Branch-sync PRs. */
  syncs: Set<number>;
}

/**
 * PRs that are not work of their own: branch syncs, and copies of an earlier PR, told by a backport
 * title naming the PR it carries, by `cherry picked from commit` naming another PR's commit, or by the
 * same patch (`git patch-id --stable`) landed earlier. Neither is a chain stage: a copy's links go to
 * its original, and a sync links nothing.
 */
export async function findCopies(
  prs: readonly PullRequestRecord[],
  textEdges: readonly Edge[],
  clone?: string,
): Promise<Copies> {
  const byNumber = new Map(prs.map((pr) => [pr.number, pr]));
  const earlier = (a: number, b: number) =>
    (byNumber.get(a)?.mergedAt ?? '') < (byNumber.get(b)?.mergedAt ?? '') ||
    ((byNumber.get(a)?.mergedAt ?? '') === (byNumber.get(b)?.mergedAt ?? '') && a < b);
  const copies: Copies = {
    copyOf: new Map(),
    why: new Map(),
    syncs: new Set(prs.filter(isBranchSync).map((pr) => pr.number)),
  };
  const mark = (copy: number, original: number, why: string) => {
    if (copy === original || copies.copyOf.has(copy) || copies.syncs.has(copy) || !earlier(original, copy)) return;
    copies.copyOf.set(copy, original);
    copies.why.set(copy, why);
  };
  const backports = textEdges
    .filter((edge) => BACKPORT.test(byNumber.get(edge.from)?.title ?? ''))
    .sort((a, b) => Number(b.source?.field === 'title') - Number(a.source?.field === 'title'));
  for (const edge of backports) mark(edge.from, edge.to, `a backport of #${edge.to}`);
  const owner = new Map<string, number>();
  for (const pr of prs) for (const sha of [pr.mergeSha, ...(pr.commitShas ?? [])]) owner.set(sha, pr.number);
  for (const pr of prs) {
    for (const match of pr.messages.join('\n').matchAll(CHERRY_PICKED)) {
      const found = [...owner].filter(([sha]) => sha.startsWith(match[1].toLowerCase())).map(([, n]) => n);
      if (found.length === 1) mark(pr.number, found[0], `cherry-picked from #${found[0]}`);
    }
  }
  // The same patch after a revert of it lands it again: a restore, a stage of its own.
  const reverted = new Set(textEdges.filter((edge) => edge.kind === 'reverts').map((edge) => edge.to));
  if (clone)
    for (const [copy, original] of await samePatches(clone, prs))
      if (!reverted.has(original)) mark(copy, original, `the same patch as #${original}`);
  return copies;
}

/**
 * Pairs (later, earliest) of PRs whose patches have one patch-id. Only PRs changing the same files
 * by the same counts can share a patch, so patch ids are computed for those alone.
 */
async function samePatches(clone: string, prs: readonly PullRequestRecord[]): Promise<[number, number][]> {
  const shapes = new Map<string, PullRequestRecord[]>();
  for (const pr of prs) {
    if (pr.files.length === 0) continue;
    const shape = pr.files
      .map((file) => `${file.path}:${file.additions}:${file.deletions}`)
      .sort()
      .join('|');
    shapes.set(shape, [...(shapes.get(shape) ?? []), pr]);
  }
  const pairs: [number, number][] = [];
  for (const group of shapes.values()) {
    if (group.length < 2) continue;
    const ids = new Map<string, PullRequestRecord>();
    for (const pr of [...group].sort((a, b) => a.mergedAt.localeCompare(b.mergedAt) || a.number - b.number)) {
      const diff = await git(clone, ['diff', '--no-color', '--no-ext-diff', pr.baseSha, pr.mergeSha]).catch(() => '');
      const id = (
        await git(clone, ['patch-id', '--stable'], { input: `commit ${pr.mergeSha}\n${diff}` }).catch(() => '')
      ).split(' ')[0];
      if (!id) continue;
      const first = ids.get(id);
      if (first) pairs.push([pr.number, first.number]);
      else ids.set(id, pr);
    }
  }
  return pairs;
}

/** Edges with copies replaced by their originals; edges of syncs, and those a copy turns into a loop, left out. */
export function redirect(edges: readonly Edge[], copies: Copies): Edge[] {
  const to = (n: number) => copies.copyOf.get(n) ?? n;
  return edges
    .filter((edge) => !copies.syncs.has(edge.from) && !copies.syncs.has(edge.to))
    .map((edge) =>
      copies.copyOf.has(edge.from) || copies.copyOf.has(edge.to)
        ? {
            ...edge,
            from: to(edge.from),
            to: to(edge.to),
            evidence: `${edge.evidence} (between copies: ${[edge.from, edge.to]
              .filter((n) => copies.copyOf.has(n))
              .map((n) => `#${n} is ${copies.why.get(n)}`)
              .join(', ')})`,
          }
        : edge,
    )
    .filter((edge) => edge.from !== edge.to);
}
