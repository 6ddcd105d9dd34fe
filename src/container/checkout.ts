import { MIRROR_OBJECTS } from './docker-container';
import { REPO_DIR } from './sandbox';

/** Where an environment image records the commit its build products (a CMake build dir, a cargo target dir) were built from. */
export const BUILT_AT_FILE = '/work/.chainsmith-built-at';
/**
 * Where an environment image keeps the files its build wrote into the tree that git ignores (a version
 * module setuptools_scm writes, an extension compiled in place): the tree lives in memory and every
 * sandbox checks it out anew, so each checkout puts them back where the commit has no file of that name.
 */
export const TREE_PRODUCTS = '/work/.chainsmith-tree-products';
/** 2000-01-01: older than any build product an image holds. */
const UNCHANGED_MTIME = 946684800;

/**
 * A shell function that writes the tree of each submodule (gitlink) of commit $1 into its folder under
 * $2, and theirs below them. A sandbox's repository holds no submodule: git leaves a gitlink's folder
 * empty and, with no repository in it, ignores whatever is written there (status, diff and add never
 * show it), so a submodule is the tree's read-only dependency. Its commits are in the borrowed object
 * store where the host fetched them (`fetchSubmodules`); one the host could not fetch is said on stderr
 * and left empty. A temporary index writes each tree exactly (no export-ignore, links and modes kept).
 */
const SUBMODULES = [
  'chainsmith_submodules() {',
  `  git ls-tree -r "$1" | while IFS="$(printf '\t')" read -r meta path; do`,
  '    case "$meta" in "160000 commit "*) ;; *) continue ;; esac',
  '    sub=${meta#160000 commit }; dir="./$2$path"',
  '    rm -rf "$dir" && mkdir -p "$dir" || continue',
  '    if git cat-file -e "$sub^{commit}" 2>/dev/null; then',
  '      GIT_INDEX_FILE=/tmp/.chainsmith-submodule git read-tree "$sub" &&',
  '        GIT_INDEX_FILE=/tmp/.chainsmith-submodule git --work-tree="$dir" checkout-index -a -f &&',
  '        chainsmith_submodules "$sub" "$2$path/"',
  '      rm -f /tmp/.chainsmith-submodule',
  '    else',
  '      echo "submodule $2$path: its commit $sub is not in the repository (the host could not fetch it)" >&2',
  '    fi',
  '  done',
  '}',
];

/** The paths of the submodules a checkout's output says it left empty (SUBMODULES: commits the host could not fetch). */
export const missingSubmodules = (output: string): string[] => [
  ...new Set([...output.matchAll(/^submodule (.+): its commit [0-9a-f]+ is not in the repository/gm)].map((m) => m[1])),
];

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
    ...SUBMODULES,
    `if [ -d ${REPO_DIR}/.git ]; then`,
    `  cd ${REPO_DIR}`,
    // A sandbox reused after a crash may hold a half-done cherry-pick.
    '  git cherry-pick --quit >/dev/null 2>&1 || true',
    `  git checkout -q -f --detach ${sha} || { ${missing}; }`,
    '  git clean -qfd',
    '  if [ -f .gitmodules ]; then chainsmith_submodules HEAD ""; fi',
    'else',
    `  git init -q ${REPO_DIR} && echo ${MIRROR_OBJECTS} > ${REPO_DIR}/.git/objects/info/alternates && cd ${REPO_DIR}`,
    // What Python compiles in the tree (languages/python/bytecode.ts) is no change to it: not in a patch, kept by `git clean`.
    `  mkdir -p .git/info && printf '__pycache__/\\n*.py[co]\\n' >> .git/info/exclude`,
    `  git checkout -q --detach ${sha} || { ${missing}; }`,
    '  if [ -f .gitmodules ]; then chainsmith_submodules HEAD ""; fi',
    `  if [ -s ${BUILT_AT_FILE} ] && git diff --name-only -z "$(cat ${BUILT_AT_FILE})" HEAD -- > /tmp/.chainsmith-changed 2>/dev/null; then`,
    `    find . -path ./.git -prune -o -exec touch -h -d @${UNCHANGED_MTIME} {} +`,
    '    xargs -0 -r touch -c -h -- < /tmp/.chainsmith-changed',
    // A submodule whose commit changed is a folder in that list: every file in it is new.
    `    xargs -0 -r sh -c 'for p do if [ -d "$p" ]; then find "$p" -exec touch -h {} +; fi; done' sh < /tmp/.chainsmith-changed`,
    // The index keeps the checkout's stat data: `git apply --index/--3way` (a gold replay's apply) would
    // take every dated-back file for one that does not match the index.
    '    git update-index -q --refresh >/dev/null || true',
    '  fi',
    'fi',
    `if [ -d ${TREE_PRODUCTS} ]; then cp -an ${TREE_PRODUCTS}/. ${REPO_DIR}/ 2>/dev/null || true; fi`,
  ];
}
