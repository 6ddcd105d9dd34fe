import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PullRequestRecordSchema, type PullRequestRecord } from '../../schemas';
import { changedFilesOf } from './changed-files';
import { changesTests } from '../file-kind';
import { inlineTestFiles } from '../../environments/inline-tests';
import { logCommits, splitMessage, type LoggedCommit } from './commit-log';
import { MiningError, NotAGitRepositoryError } from '../errors';
import { git, GitError } from '../../git';
import { recognizeLanding, type Landing } from './landing';
import type { ProgressListener } from '../progress';
import { findPatchLandings } from './patch-landings';
import { pullHeads } from './pull-refs';
import { findRebaseLandings, RebaseCandidates } from './rebase-landings';
import { ReachSweep } from './reach-sweep';
import { splitSideLandings } from './side-landings';

/** The repository must be `repoPath` itself, not some repository that happens to contain it. */
async function checkRepository(repoPath: string): Promise<void> {
  const isDirectory = await stat(repoPath).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isDirectory) throw new NotAGitRepositoryError(repoPath);
  const ceiling = dirname(await realpath(repoPath));
  try {
    await git(repoPath, ['rev-parse', '--git-dir'], { env: { GIT_CEILING_DIRECTORIES: ceiling } });
  } catch (error) {
    throw new NotAGitRepositoryError(repoPath, { cause: error });
  }
}

/**
 * The commit `revision` names, in the repository that is `repoPath` itself. One git process answers
 * both questions when all is well; a failure is then asked apart, to say which of the two it was.
 */
async function resolveTip(repoPath: string, revision: string): Promise<string> {
  const ceiling = await realpath(repoPath).then(dirname, () => undefined);
  const verify = ['--verify', '--quiet', '--end-of-options', `${revision}^{commit}`];
  if (ceiling !== undefined) {
    const answer = await git(repoPath, ['rev-parse', '--git-dir', ...verify], {
      env: { GIT_CEILING_DIRECTORIES: ceiling },
    }).catch(() => undefined);
    const tip = answer?.trim().split('\n')[1];
    if (tip) return tip;
  }
  await checkRepository(repoPath);
  try {
    return (await git(repoPath, ['rev-parse', ...verify])).trim();
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    throw new MiningError(`no commit named ${revision} in ${repoPath}`, { cause: error });
  }
}

/** Title and body: from the landing message when it has them, else from the PR's first commit. */
function describe(landing: Landing | undefined, message: string, own: LoggedCommit[]): { title: string; body: string } {
  const first = own.length > 0 ? splitMessage(own[0].message) : undefined;
  // A PR landed by hand has no landing message of GitHub's making; its first commit says the most.
  if (!landing)
    return first ? { title: first.subject, body: first.rest } : { title: splitMessage(message).subject, body: '' };
  const { subject, rest } = splitMessage(message);
  if (landing.title !== undefined) return { title: landing.title, body: rest };
  // GitHub writes only the PR title into a merge message; the PR's first commit is the closest
  // local stand-in for the description that stayed on GitHub.
  if (rest !== '') {
    const described = splitMessage(rest);
    return { title: described.subject, body: described.rest || (first?.rest ?? '') };
  }
  return first ? { title: first.subject, body: first.rest } : { title: subject, body: '' };
}

/** One PR found on the branch, before its changed files are known. */
interface Found {
  number: number;
  landing: PullRequestRecord['landing'];
  commit: LoggedCommit;
  base: string;
  head?: string;
  own: LoggedCommit[];
  title: string;
  body: string;
}

interface LocalMineOptions {
  /** The branch whose first-parent line is read; HEAD by default. */
  branch?: string;
  onProgress?: ProgressListener;
  /** Told about each PR that is skipped. */
  warn?: (message: string) => void;
}

export interface LocalMineResult {
  /** Merged PRs, oldest landing first. */
  prs: PullRequestRecord[];
  /** Numbers the clone knows to be PRs through refs/pull/N/head, merged or not. */
  pullNumbers: Set<number>;
  /** Commits read from the history. */
  commits: number;
  /** PRs found that cannot be recorded (a refs/pull/0, a malformed commit): the mine goes on without them. */
  skipped: SkippedPr[];
}

interface SkippedPr {
  number: number;
  reason: string;
}

/** How far back a hand-landed, fast-forwarded PR's commits are looked for. */
const MAX_HAND_LANDED_COMMITS = 100;

/**
 * Reads the pull requests that landed on `branch` (default HEAD) of a local clone, oldest first:
 * GitHub-style merge and squash commits on its first-parent line, and PRs landed by hand whose
 * refs/pull/N/head the clone has. A few git processes read the whole history; patches are left out
 * (see `withLocalPatches`), since only the PRs that end up in chains need them.
 */
export async function readLocalPullRequests(repoPath: string, opts: LocalMineOptions = {}): Promise<LocalMineResult> {
  const path = resolve(repoPath);
  // Independent questions, asked at once: each git process costs more to start than to answer. The
  // heads' answer counts only once the path has proved to be a repository of its own.
  const reading = pullHeads(path);
  reading.catch(() => undefined);
  const tip = await resolveTip(path, opts.branch ?? 'HEAD');
  const heads = await reading;
  opts.onProgress?.({ phase: 'reading history', done: 0 });
  const logged = await logCommits(path, [tip, ...new Set(heads.values())]);
  const bySha = new Map(logged.map((commit) => [commit.sha, commit]));
  const position = new Map(logged.map((commit, index) => [commit.sha, index]));

  const mainline: LoggedCommit[] = [];
  for (let commit = bySha.get(tip); commit; commit = bySha.get(commit.parents[0] ?? '')) mainline.push(commit);
  mainline.reverse();

  // A number seen again is a backport or cherry-pick of a PR already mined; the first landing counts.
  const landings = new Map<string, Landing>();
  const landed = new Set<number>();
  for (const commit of mainline) {
    if (commit.parents.length === 0) continue; // a root commit has no base to diff against
    const landing = recognizeLanding(splitMessage(commit.message).subject, commit.parents.length);
    if (!landing || landed.has(landing.number)) continue;
    landed.add(landing.number);
    landings.set(commit.sha, landing);
  }
  // PRs rebased onto the branch: their commits are on it under new ids, their head is not.
  const onBranch = reachableFrom(tip, bySha);
  const rebaseCandidates = new RebaseCandidates(heads, bySha, onBranch);
  const claimed = new Set(landings.keys());
  const rebaseStarts = new Map<string, number>();
  for (const { number, start, end } of findRebaseLandings(mainline, rebaseCandidates, landed, claimed)) {
    landed.add(number);
    landings.set(mainline[end].sha, { number, landing: 'rebase' });
    rebaseStarts.set(mainline[end].sha, start);
    for (let i = start; i <= end; i++) claimed.add(mainline[i].sha);
  }
  // PRs squashed under a subject edited not to name them: by their patch.
  for (const [sha, landing] of await findPatchLandings(path, mainline, heads, bySha, onBranch, landed, claimed)) {
    landed.add(landing.number);
    landings.set(sha, landing);
    claimed.add(sha);
  }
  const unlandedHeads = new Map<string, number[]>();
  for (const [number, sha] of heads) {
    if (!landed.has(number)) unlandedHeads.set(sha, [...(unlandedHeads.get(sha) ?? []), number]);
  }

  const sweep = new ReachSweep(bySha, position);
  const found: Found[] = [];
  // A commit is one PR's own, the first to land with it. A branch stacked on another PR's still reaches
  // that PR's commits once it landed by squash (they never reach the branch): they stay that PR's.
  const taken = new Set<string>();
  const untaken = (commits: LoggedCommit[]) => commits.filter((c) => !taken.has(c.sha));
  const keep = (pr: Found) => {
    for (const c of pr.own) taken.add(c.sha);
    found.push(pr);
  };
  mainline.forEach((commit, index) => {
    if (index % 2000 === 0) opts.onProgress?.({ phase: 'linking commits to PRs', done: index, total: mainline.length });
    const landing = landings.get(commit.sha);
    const head = landing ? (landing.landing === 'merge' ? commit.parents[1] : heads.get(landing.number)) : undefined;
    // A squashed PR's own commits hang off its head ref, unreachable from the branch.
    const squashed = landing?.landing === 'squash' && head ? untaken(sweep.unreachedFrom(head)) : [];
    const brought = sweep.advance(commit);
    // A head merged by hand straight into the branch is this merge's PR, not a side branch's.
    const handMerged = landing ? undefined : commit.parents[1];
    // Copied only when it must drop one: copying every unlanded head at every commit made reading
    // a clone with many pull refs quadratic.
    const sideHeads =
      handMerged && unlandedHeads.has(handMerged)
        ? new Map([...unlandedHeads].filter(([sha]) => sha !== handMerged))
        : unlandedHeads;
    const rebasedOnto = commit.parents[1]
      ? {
          tip: commit.parents[1],
          find: (line: LoggedCommit[], taken: ReadonlySet<string>) =>
            findRebaseLandings(line, rebaseCandidates, landed, taken),
        }
      : undefined;
    const { sides, rest: restAll } = splitSideLandings(
      brought,
      landed,
      sideHeads,
      (side) => {
        const sideHead = heads.get(side.number);
        return { head: sideHead, own: sideHead ? sweep.unreachedFrom(sideHead) : [] };
      },
      rebasedOnto,
    );
    for (const side of sides) {
      // A rebased PR's first commit says the most, as on the branch itself.
      const landing = side.landing?.landing === 'rebase' ? undefined : side.landing;
      const own = untaken(side.own);
      keep({
        ...side,
        own,
        landing: side.landing?.landing ?? 'manual',
        ...describe(landing, side.commit.message, own),
      });
    }
    const rest = untaken(restAll);
    if (landing?.landing === 'rebase') {
      // The replayed commits are the PR's own; the first of them says the most (as for a hand-landed PR).
      const own = mainline.slice(rebaseStarts.get(commit.sha), index + 1);
      keep({
        number: landing.number,
        landing: 'rebase',
        commit,
        base: own[0].parents[0],
        head,
        own,
        ...describe(undefined, commit.message, own),
      });
      return;
    }
    if (landing) {
      const own = landing.landing === 'merge' ? rest : squashed;
      keep({
        number: landing.number,
        landing: landing.landing,
        commit,
        base: commit.parents[0],
        head,
        own,
        ...describe(landing, commit.message, own),
      });
      return;
    }
    for (const arrived of [commit, ...rest]) {
      for (const number of unlandedHeads.get(arrived.sha) ?? []) {
        if (landed.has(number)) continue;
        landed.add(number);
        keep(handLanded(number, arrived, commit, rest, mainline, index, claimed, unlandedHeads));
      }
    }
  });

  // What each PR changed, base..landing, diffed for the PRs alone: most first-parent commits of a real
  // history are no PR's landing, and diffing every one of them was most of the reading time.
  const changed = await changedFilesOf(
    path,
    found.map(({ base, commit }) => ({ base, merge: commit.sha })),
  );
  const filesOf = (pr: Found) => changed.get(pr.commit.sha) ?? [];
  const prs: PullRequestRecord[] = [];
  const skipped: SkippedPr[] = [];
  for (const pr of found.sort((a, b) => (position.get(b.commit.sha) ?? 0) - (position.get(a.commit.sha) ?? 0))) {
    const record = toRecord(pr, filesOf(pr));
    if ('reason' in record) {
      skipped.push(record);
      opts.warn?.(`skipped PR #${record.number}: ${record.reason}`);
    } else {
      // A PR whose tests are the unit tests inside its code (Rust's #[cfg(test)] items) changes tests too.
      if (!record.changesTests && (await inlineTestFiles(path, record)).length) record.changesTests = true;
      prs.push(record);
    }
  }
  opts.onProgress?.({ phase: 'linking commits to PRs', done: mainline.length, total: mainline.length });
  return { prs, skipped, pullNumbers: new Set(heads.keys()), commits: logged.length };
}

/** Every logged commit `tip` reaches, through any parent. */
function reachableFrom(tip: string, bySha: ReadonlyMap<string, LoggedCommit>): Set<string> {
  const reached = new Set<string>();
  const stack = [tip];
  while (stack.length > 0) {
    const commit = bySha.get(stack.pop() as string);
    if (!commit || reached.has(commit.sha)) continue;
    reached.add(commit.sha);
    stack.push(...commit.parents);
  }
  return reached;
}

/**
 * A PR whose head reached the branch without a landing message of GitHub's: merged by hand (the
 * merge that brought its head in lands it) or fast-forwarded (its head is on the first-parent line;
 * its commits are taken to be the run of same-author commits before it that land nothing else).
 */
function handLanded(
  number: number,
  head: LoggedCommit,
  landingCommit: LoggedCommit,
  brought: LoggedCommit[],
  mainline: LoggedCommit[],
  index: number,
  /** Branch commits that land a PR, or belong to a rebased one. */
  claimed: ReadonlySet<string>,
  heads: ReadonlyMap<string, number[]>,
): Found {
  if (head.sha !== landingCommit.sha) {
    const { title, body } = describe(undefined, landingCommit.message, brought);
    return {
      number,
      landing: 'manual',
      commit: landingCommit,
      base: landingCommit.parents[0],
      head: head.sha,
      own: brought,
      title,
      body,
    };
  }
  let start = index;
  const belongs = (commit: LoggedCommit) =>
    commit.author === head.author && !claimed.has(commit.sha) && !heads.has(commit.sha) && commit.parents.length === 1;
  while (start > 1 && index - start < MAX_HAND_LANDED_COMMITS && belongs(mainline[start - 1])) start -= 1;
  const own = mainline.slice(start, index + 1);
  const { title, body } = describe(undefined, head.message, own);
  return { number, landing: 'manual', commit: head, base: own[0].parents[0], head: head.sha, own, title, body };
}

function toRecord(pr: Found, files: PullRequestRecord['files']): PullRequestRecord | SkippedPr {
  const candidate = {
    number: pr.number,
    title: pr.title,
    body: pr.body,
    // A landing commit that is one of the PR's own (fast-forwarded or rebased) is not said twice.
    messages: pr.own.some((c) => c.sha === pr.commit.sha)
      ? pr.own.map((c) => c.message)
      : [pr.commit.message, ...pr.own.map((c) => c.message)],
    author: pr.own[0]?.author ?? pr.commit.author,
    mergedAt: new Date(pr.commit.committedAt).toISOString(),
    landing: pr.landing,
    baseSha: pr.base,
    mergeSha: pr.commit.sha,
    files,
    headSha: pr.head,
    commitShas: pr.own.map((c) => c.sha),
    changesTests: changesTests(files),
  };
  const parsed = PullRequestRecordSchema.safeParse(candidate);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'record'}: ${issue.message}`);
    return {
      number: pr.number,
      reason: `the record at ${pr.commit.sha.slice(0, 12)} does not fit the schema (${problems.slice(0, 2).join('; ')})`,
    };
  }
  return parsed.data;
}
