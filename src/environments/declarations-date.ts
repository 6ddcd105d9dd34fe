import { git } from '../git';
import { commitDate } from './repo-files';

/** How many of the manifests' changes are looked at, newest first, before the oldest seen is taken. */
const WALK_LIMIT = 40;

/**
 * When the dependency declarations last changed at or before `sha`: the date a recipe that resolves
 * ranges resolves as of. A change to the manifests that declares nothing new (a release's version
 * bump, a classifier, a package rename) keeps the date, so the stages on both sides of it resolve to
 * the same packages and share one environment; dated by the manifests' bytes, each such change would
 * pick whatever had been published since. `declared(rev)` is the declarations at a revision, as the
 * fetch is keyed on them. The walk stops at WALK_LIMIT changes (then the oldest one's date).
 */
export async function declarationsDate(
  repoPath: string,
  sha: string,
  manifests: string[],
  declared: (rev: string) => Promise<string>,
): Promise<Date> {
  const log = manifests.length
    ? (await git(repoPath, ['log', `-${WALK_LIMIT}`, '--format=%H %cI', sha, '--', ...manifests])).trim()
    : '';
  if (!log) return commitDate(repoPath, sha);
  const changes = log.split('\n').map((l) => {
    const [commit, date] = l.split(' ');
    return { commit, date: new Date(date) };
  });
  const now = await declared(sha);
  for (const { commit, date } of changes) {
    // The commit before it (its first parent) declared something else, or nothing (a root commit): this change made `now`.
    const before = await declared(`${commit}^`).catch(() => undefined);
    if (before !== now) return date;
  }
  return changes[changes.length - 1].date;
}
