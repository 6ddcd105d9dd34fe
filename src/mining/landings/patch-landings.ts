import { git } from '../../git';
import { splitMessage, type LoggedCommit } from './commit-log';
import type { Landing } from './landing';

/** How far back from a PR's head its own commits are walked, looking for where it forked from the branch. */
const MAX_OWN_COMMITS = 250;
/** Diffs a `git diff-tree` call writes at most: a whole history's patches would not fit in memory at once. */
const DIFFS_PER_CALL = 500;
/** Lines a path-only `git diff-tree` call takes: its output is a few paths a diff. */
const PATHS_PER_CALL = 5000;

/** A PR whose head the branch does not reach, with where it forked and when its last commit was made. */
interface Unlanded {
  number: number;
  head: string;
  fork: string;
  madeAt: number;
}

/**
 * PRs squashed onto the branch under a subject that does not name them: GitHub's squash writes
 * "Title (#N)", and a maintainer may edit it away. Such a PR's head is not on the branch; its change
 * is, as one commit whose patch is the PR's whole change (fork..head), line for line: the same
 * `git patch-id --stable`. A PR counts when exactly one commit of `line` (the first-parent line, oldest
 * first) that lands nothing else, is nobody's head and was made after the PR's head has its patch
 * id, and no other PR shares that id (one patch submitted twice says nothing of which one landed).
 * By the commit that lands it, with its subject as the title.
 */
export async function findPatchLandings(
  repoPath: string,
  line: readonly LoggedCommit[],
  heads: ReadonlyMap<number, string>,
  bySha: ReadonlyMap<string, LoggedCommit>,
  onBranch: ReadonlySet<string>,
  landed: ReadonlySet<number>,
  claimed: ReadonlySet<string>,
): Promise<Map<string, Landing>> {
  const unlanded = [...heads]
    .filter(([number, head]) => !landed.has(number) && !onBranch.has(head))
    .map(([number, head]) => forkOf(number, head, bySha, onBranch))
    .filter((pr): pr is Unlanded => pr !== undefined);
  if (!unlanded.length) return new Map();
  // Not Math.min(...all): a repository's unlanded pull refs may outnumber the arguments a call takes.
  const earliest = unlanded.reduce((min, pr) => Math.min(min, pr.madeAt), Infinity);
  const headShas = new Set(heads.values());
  const candidates = line.filter(
    (c) =>
      c.parents.length === 1 && !claimed.has(c.sha) && !headShas.has(c.sha) && Date.parse(c.committedAt) >= earliest,
  );
  if (!candidates.length) return new Map();
  // Only a commit and a PR that change the same paths can share a patch: paths are cheap to diff, patches are not.
  const prLines = unlanded.map((pr) => `${pr.head} ${pr.fork}`);
  const [prPaths, linePaths] = await Promise.all([
    changedPaths(repoPath, prLines),
    changedPaths(
      repoPath,
      candidates.map((c) => c.sha),
    ),
  ]);
  const [prKeys, lineKeys] = [new Set(prPaths.values()), new Set(linePaths.values())];
  const [prIds, lineIds] = await Promise.all([
    patchIds(
      repoPath,
      prLines.filter((_, i) => lineKeys.has(prPaths.get(unlanded[i].head) ?? '')),
    ),
    patchIds(
      repoPath,
      candidates.filter((c) => prKeys.has(linePaths.get(c.sha) ?? '')).map((c) => c.sha),
    ),
  ]);
  const prsById = new Map<string, Unlanded[]>();
  for (const pr of unlanded) {
    const id = prIds.get(pr.head);
    if (id) prsById.set(id, [...(prsById.get(id) ?? []), pr]);
  }
  const landings = new Map<string, Landing>();
  const taken = new Set<number>();
  for (const commit of candidates) {
    const prs = prsById.get(lineIds.get(commit.sha) ?? '') ?? [];
    if (prs.length !== 1) continue;
    const [pr] = prs;
    if (taken.has(pr.number) || Date.parse(commit.committedAt) < pr.madeAt) continue;
    taken.add(pr.number);
    landings.set(commit.sha, {
      number: pr.number,
      landing: 'squash',
      title: splitMessage(commit.message).subject,
    });
  }
  return landings;
}

/**
 * Where a PR's head forked from the branch, as its change is reckoned: the newest commit of the branch
 * its own commits reach (a PR that merged the branch in to catch up reckons from there, as the squash
 * of it does).
 */
function forkOf(
  number: number,
  head: string,
  bySha: ReadonlyMap<string, LoggedCommit>,
  onBranch: ReadonlySet<string>,
): Unlanded | undefined {
  const last = bySha.get(head);
  if (!last) return undefined;
  let fork: LoggedCommit | undefined;
  const seen = new Set([head]);
  const stack = [last];
  while (stack.length && seen.size <= MAX_OWN_COMMITS) {
    for (const sha of stack.pop()!.parents) {
      if (seen.has(sha)) continue;
      seen.add(sha);
      const parent = bySha.get(sha);
      if (!parent) continue;
      if (!onBranch.has(sha)) stack.push(parent);
      else if (!fork || Date.parse(parent.committedAt) > Date.parse(fork.committedAt)) fork = parent;
    }
  }
  if (stack.length || !fork) return undefined;
  return { number, head, fork: fork.sha, madeAt: Date.parse(last.committedAt) };
}

/**
 * The paths each `git diff-tree --stdin` line changes (a commit alone, or `head fork`), as one key, by
 * the line's first commit.
 */
async function changedPaths(repoPath: string, lines: readonly string[]): Promise<Map<string, string>> {
  const paths = new Map<string, string[]>();
  for (let i = 0; i < lines.length; i += PATHS_PER_CALL) {
    const chunk = lines.slice(i, i + PATHS_PER_CALL);
    const asked = new Set(chunk.map((l) => l.split(' ')[0]));
    const out = await git(repoPath, ['diff-tree', '-r', '--name-only', '--no-renames', '--stdin'], {
      input: chunk.map((l) => `${l}\n`).join(''),
    });
    let current: string[] = [];
    for (const row of out.split('\n')) {
      if (asked.has(row)) paths.set(row, (current = []));
      else if (row) current.push(row);
    }
  }
  return new Map([...paths].map(([sha, changed]) => [sha, changed.sort().join('\n')]));
}

/**
 * `git patch-id --stable` of diffs, by the first commit of each `git diff-tree --stdin` line: a commit
 * alone (against its parent) or `head fork` (the change from fork to head).
 */
async function patchIds(repoPath: string, lines: readonly string[]): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (let i = 0; i < lines.length; i += DIFFS_PER_CALL) {
    const chunk = lines.slice(i, i + DIFFS_PER_CALL);
    const diffs = await git(repoPath, ['diff-tree', '-p', '--no-color', '--no-ext-diff', '--stdin'], {
      input: chunk.map((l) => `${l}\n`).join(''),
    });
    if (!diffs.trim()) continue;
    const out = await git(repoPath, ['patch-id', '--stable'], { input: diffs });
    for (const row of out.split('\n')) {
      const [id, sha] = row.split(' ');
      if (id && sha) ids.set(sha, id);
    }
  }
  return ids;
}
