import { MIRROR_OBJECTS, REPO_DIR } from './docker-sandbox';

/**
 * Shell lines that put the sandbox's repository at `sha` without cloning: a repository whose object
 * store borrows the host clone's (git alternates on the read-only mount), checked out in place. In an
 * environment image the repository already exists with its dependencies installed, so the checkout
 * only rewrites the files that differ, and `git clean` (without -x) keeps ignored build products such
 * as a virtualenv's egg-info or node_modules. The cost depends on the tree, never on the history's length.
 */
export function checkoutLines(sha: string): string[] {
  return [
    `if [ ! -d ${REPO_DIR}/.git ]; then git init -q ${REPO_DIR} && echo ${MIRROR_OBJECTS} > ${REPO_DIR}/.git/objects/info/alternates; fi`,
    `cd ${REPO_DIR}`,
    `if ! git cat-file -e '${sha}^{commit}' 2>/dev/null; then echo "commit ${sha} does not exist in the repository" >&2; exit 3; fi`,
    // A sandbox reused after a crash may hold a half-done cherry-pick.
    'git cherry-pick --quit >/dev/null 2>&1 || true',
    `git checkout -q -f --detach ${sha}`,
    'git clean -qfd',
  ];
}
