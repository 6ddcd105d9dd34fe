import { MIRROR_OBJECTS } from './docker-container';
import { REPO_DIR } from './sandbox';

/** Where an environment image records the commit its build products (a CMake build dir, a cargo target dir) were built from. */
export const BUILT_AT_FILE = '/work/.chainsmith-built-at';
/** 2000-01-01: older than any build product an image holds. */
const UNCHANGED_MTIME = 946684800;

/**
 * Shell lines that put the sandbox's repository at `sha` without cloning: a repository whose object
 * store borrows the host clone's (git alternates on the read-only mount), checked out into the
 * in-memory working tree. Nothing is copied or fetched, so the cost is the tree's, never the
 * history's. A sandbox that already holds the repository (a retried round) is checked out in place;
 * `git clean` without -x keeps ignored build products.
 *
 * A fresh checkout writes every file now, newer than every product the image built, so make, CMake and
 * cargo (which go by modification times) would rebuild the whole project on every first test run. Where
 * the image says which commit its products were built from (BUILT_AT_FILE), the files that commit has
 * as they are here are dated back before the build, and only those that differ stay new: the first
 * run rebuilds what changed since, as a run in the build container would.
 */
export function checkoutLines(sha: string): string[] {
  const missing = `if ! git cat-file -e '${sha}^{commit}' 2>/dev/null; then echo "commit ${sha} does not exist in the repository" >&2; exit 3; fi; exit 1`;
  return [
    `if [ -d ${REPO_DIR}/.git ]; then`,
    `  cd ${REPO_DIR}`,
    // A sandbox reused after a crash may hold a half-done cherry-pick.
    '  git cherry-pick --quit >/dev/null 2>&1 || true',
    `  git checkout -q -f --detach ${sha} || { ${missing}; }`,
    '  git clean -qfd',
    'else',
    `  git init -q ${REPO_DIR} && echo ${MIRROR_OBJECTS} > ${REPO_DIR}/.git/objects/info/alternates && cd ${REPO_DIR}`,
    `  git checkout -q --detach ${sha} || { ${missing}; }`,
    `  if [ -s ${BUILT_AT_FILE} ] && git diff --name-only -z "$(cat ${BUILT_AT_FILE})" HEAD -- > /tmp/.chainsmith-changed 2>/dev/null; then`,
    `    find . -path ./.git -prune -o -exec touch -h -d @${UNCHANGED_MTIME} {} +`,
    '    xargs -0 -r touch -c -h -- < /tmp/.chainsmith-changed',
    // The index keeps the checkout's stat data: `git apply --index/--3way` (a gold replay's apply) would
    // take every dated-back file for one that does not match the index.
    '    git update-index -q --refresh >/dev/null || true',
    '  fi',
    'fi',
  ];
}
