import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { PullRequestSchema, type PullRequest } from '../schemas';
import { changedFiles } from './changed-files';
import { logCommits, splitMessage, type LoggedCommit } from './commit-log';
import { GitCommandError, MiningError, NotAGitRepositoryError } from './errors';
import { git } from './git';
import { recognizeLanding, type Landing } from './landing';

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

async function checkRevision(repoPath: string, revision: string): Promise<void> {
  try {
    await git(repoPath, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    throw new MiningError(`no commit named ${revision} in ${repoPath}`, { cause: error });
  }
}

/** Title and body: from the landing message when it has them, else from the PR's first commit. */
function describe(landing: Landing, message: string, own: LoggedCommit[]): { title: string; body: string } {
  const { subject, rest } = splitMessage(message);
  if (landing.title !== undefined) return { title: landing.title, body: rest };
  // GitHub writes only the PR title into a merge message; the PR's first commit is the closest
  // local stand-in for the description that stayed on GitHub.
  const first = own.length > 0 ? splitMessage(own[0].message) : undefined;
  if (rest !== '') {
    const described = splitMessage(rest);
    return { title: described.subject, body: described.rest || (first?.rest ?? '') };
  }
  return first ? { title: first.subject, body: first.rest } : { title: subject, body: '' };
}

async function toPullRequest(repoPath: string, commit: LoggedCommit, landing: Landing): Promise<PullRequest> {
  const base = commit.parents[0];
  // A merge's second parent is the PR branch tip; its commits not on the base are the PR's own.
  const own =
    landing.landing === 'merge'
      ? await logCommits(repoPath, [`${base}..${commit.parents[1]}`], { reverse: true })
      : [];
  const { title, body } = describe(landing, commit.message, own);
  // Explicit prefixes and no external diff: a user's diff.noprefix or diff.external must not
  // change the patch that later stages apply.
  const patch = await git(repoPath, [
    'diff',
    '--binary',
    '--full-index',
    '-M',
    '--no-color',
    '--no-ext-diff',
    '--src-prefix=a/',
    '--dst-prefix=b/',
    '--end-of-options',
    base,
    commit.sha,
    '--',
  ]);
  const candidate = {
    number: landing.number,
    title,
    body,
    messages: [commit.message, ...own.map((ownCommit) => ownCommit.message)],
    author: own[0]?.author ?? commit.author,
    mergedAt: new Date(commit.committedAt).toISOString(),
    landing: landing.landing,
    baseSha: base,
    mergeSha: commit.sha,
    files: await changedFiles(repoPath, base, commit.sha),
    patch,
  };
  const parsed = PullRequestSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new MiningError(`PR #${landing.number} at ${commit.sha} does not fit the schema`, { cause: parsed.error });
  }
  return parsed.data;
}

/**
 * Reads the pull requests that landed on `branch` (default HEAD) of a local clone, oldest first,
 * from GitHub-style merge and squash commits on its first-parent line.
 */
export async function mineLocalRepo(repoPath: string, opts: { branch?: string } = {}): Promise<PullRequest[]> {
  const path = resolve(repoPath);
  const branch = opts.branch ?? 'HEAD';
  await checkRepository(path);
  await checkRevision(path, branch);

  const commits = await logCommits(path, [branch], { firstParent: true, reverse: true });
  const mined: PullRequest[] = [];
  const seen = new Set<number>();
  for (const commit of commits) {
    if (commit.parents.length === 0) continue; // a root commit has no base to diff against
    const landing = recognizeLanding(splitMessage(commit.message).subject, commit.parents.length);
    // A number seen again is a backport or cherry-pick of a PR already mined; the first landing counts.
    if (!landing || seen.has(landing.number)) continue;
    seen.add(landing.number);
    mined.push(await toPullRequest(path, commit, landing));
  }
  return mined;
}
