import { git } from '../../git';

export interface LoggedCommit {
  sha: string;
  parents: string[];
  author: string;
  authorEmail: string;
  /** Author date, ISO 8601: kept when a commit is rebased or cherry-picked. */
  authoredAt: string;
  /** Committer date, ISO 8601: when the commit reached the branch. */
  committedAt: string;
  /** Full message, trailing whitespace removed. */
  message: string;
}

// Unit separator between fields, NUL (-z) between commits: neither occurs in commit messages.
const FORMAT = '--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%cI%x1f%B';

/** `git log` of a revision range, newest first unless `reverse`. */
export async function logCommits(
  repoPath: string,
  revisions: string[],
  options: { firstParent?: boolean; reverse?: boolean } = {},
): Promise<LoggedCommit[]> {
  const flags = [
    '-z',
    '--no-show-signature',
    FORMAT,
    ...(options.firstParent ? ['--first-parent'] : []),
    ...(options.reverse ? ['--reverse'] : []),
  ];
  // Revisions go through stdin: a clone with every refs/pull/N/head can name tens of thousands.
  const output = await git(repoPath, ['log', ...flags, '--stdin', '--'], {
    input: revisions.map((revision) => `${revision}\n`).join(''),
  });
  return output
    .split('\0')
    .filter((record) => record !== '')
    .map((record) => {
      const [sha, parents, author, authorEmail, authoredAt, committedAt, message] = record.split('\x1f');
      return {
        sha,
        parents: parents === '' ? [] : parents.split(' '),
        author,
        authorEmail,
        authoredAt,
        committedAt,
        message: message.trimEnd(),
      };
    });
}

/** First line of a message, and the rest with surrounding blank lines removed. */
export function splitMessage(message: string): { subject: string; rest: string } {
  const newline = message.indexOf('\n');
  if (newline < 0) return { subject: message.trim(), rest: '' };
  return { subject: message.slice(0, newline).trim(), rest: message.slice(newline + 1).trim() };
}
