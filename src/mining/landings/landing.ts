/** How a commit on the first-parent line says that it landed a pull request. */
export interface Landing {
  number: number;
  /** 'rebase': found by its commits (rebase-landings.ts), not by a message. */
  landing: 'merge' | 'squash' | 'rebase';
  /** Set when the subject itself is the PR title ("Title (#N)"); otherwise body or commits give it. */
  title?: string;
}

const MERGE_PULL_REQUEST = /^Merge pull request #(\d+) from \S+/;
const MERGE_PR_BRANCH = /^Merge branch '(?:[^']*\/)?pr[/-](\d+)'/;
const TITLE_WITH_NUMBER = /^(.*\S)\s+\(#(\d+)\)$/;

/** Recognises GitHub's merge, squash and "Merge branch 'pr/N'" landings; anything else is not a PR. */
export function recognizeLanding(subject: string, parentCount: number): Landing | undefined {
  const isMerge = parentCount >= 2;
  const merged = isMerge ? (MERGE_PULL_REQUEST.exec(subject) ?? MERGE_PR_BRANCH.exec(subject)) : null;
  if (merged) return { number: Number(merged[1]), landing: 'merge' };

  const titled = TITLE_WITH_NUMBER.exec(subject);
  if (titled) return { number: Number(titled[2]), landing: isMerge ? 'merge' : 'squash', title: titled[1] };
  return undefined;
}
