import { MIRROR_OBJECTS } from './docker-container';
import { REPO_DIR } from './sandbox';

/**
 * Shell lines that put the sandbox's repository at `sha` without cloning: a repository whose object
 * store borrows the host clone's (git alternates on the read-only mount), checked out into the
 * in-memory working tree. Nothing is copied or fetched, so the cost is the tree's, never the
 * history's. A sandbox that already holds the repository (a retried round) is checked out in place;
 * `git clean` without -x keeps ignored build products.
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
    'fi',
  ];
}
