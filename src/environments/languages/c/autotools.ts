/** Where autotools projects are configured and built: outside the working tree, kept in the image as meson's is. */
export const AUTOTOOLS_BUILD_DIR = '/work/build-autotools';
/** The untracked paths before autoreconf: what it adds is the difference. */
const UNTRACKED = '/tmp/chainsmith-untracked-before-autoreconf';

/**
 * Shell that makes `configure` and configures the build directory. A committed `configure` is used as
 * it is and automake's rules that would make it again are turned off (`noregen`, given to every make):
 * a checkout writes files in no particular order of time, so a Makefile.in may look older than
 * configure.ac, and the rule would call the automake version the project generated with, which the
 * image may not have. Otherwise autoreconf makes it, and the paths it adds are excluded from git's view, so
 * that an agent's patch never carries them. automake runs at foreign strictness unless the project asks
 * for another: its default, gnu, fails where NEWS, README, AUTHORS or ChangeLog is missing, files a
 * project's own bootstrap script touches or that a release adds, not what its build or tests need. A
 * build directory the image kept is reused: automake's own rules configure it again where `configure`
 * changed.
 */
const PREPARE = [
  'src=$PWD; noregen=',
  'if git ls-files --error-unmatch configure >/dev/null 2>&1; then',
  "  noregen='ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true'",
  'else',
  `  git ls-files -o --exclude-standard --directory | sort >${UNTRACKED}`,
  "  AUTOMAKE='automake --foreign' autoreconf -fi || exit 2",
  // What autoreconf added, each path anchored: an agent's own file of the same name elsewhere stays in its patch.
  `  mkdir -p .git/info && git ls-files -o --exclude-standard --directory | sort | comm -13 ${UNTRACKED} - | sed 's|^|/|' >>.git/info/exclude || true`,
  'fi',
  `mkdir -p ${AUTOTOOLS_BUILD_DIR} && cd ${AUTOTOOLS_BUILD_DIR} || exit 2`,
  '[ -f config.status ] || sh "$src/configure" --enable-silent-rules || exit 2',
].join('\n');

/**
 * The image's setup: configure must succeed (a project that cannot be configured here has no
 * environment), the build is best effort: it warms ccache's store, and a base that does not compile
 * (the PR fixes the build) must not refuse every stage sharing its manifests.
 */
export const AUTOTOOLS_SETUP = [PREPARE, 'make -k -j2 $noregen || true'];

/**
 * Links into the build tree each file of the source tree that it lacks, sources and build inputs
 * aside: the tests' data files. A project's own builds (its CI, `./configure && make check`) are
 * in-tree, where a test that opens `tests/input.conf` finds it; the build here is out of the tree,
 * where it did not, and the test failed after its change as before it. Directories are made, never
 * linked, so that what the build writes stays in the build tree.
 */
const LINK_SOURCE_FILES = [
  `(cd "$src" && find . -name '.?*' -prune -o -type f ${['Makefile*', '*.am', '*.in', '*.[chly]', '*.cc', '*.cpp', '*.cxx', '*.hpp'].map((n) => `! -name '${n}'`).join(' ')} -print) |`,
  '  while read -r f; do [ -e "$f" ] || [ -L "$f" ] || { mkdir -p "${f%/*}" && ln -s "$src/${f#./}" "$f"; }; done',
].join('\n');

/** One automake test-driver result line. */
const RESULT_LINE = "'^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): '";

/**
 * `make check`, then, where it failed, each test directory's remaining tests: automake's check-am
 * builds the test programs and runs the tests as two steps of one recipe, so one test program that
 * does not compile (a PR's new test before its change) stops every test of its directory. Making the
 * directory's test-suite log runs the tests whose programs build and that have not run; a test that
 * still has no result did not build, and fails, as a missing program does under CTest. Results of an
 * earlier run in the same sandbox are removed first (check-TESTS would, but only once it is reached).
 */
export const AUTOTOOLS_TEST = [
  PREPARE,
  "find . -name '*.trs' -delete; find . -name '*.log' ! -name config.log -delete",
  LINK_SOURCE_FILES,
  'make -k -j2 $noregen check; s=$?',
  'if [ $s -ne 0 ]; then',
  "  for m in $(find . -name Makefile -exec grep -l '^check-TESTS:' {} + 2>/dev/null); do",
  '    d=$(dirname "$m")',
  '    log=$(sed -n \'s/^TEST_SUITE_LOG = //p\' "$m")',
  // The serial harness (automake's serial-tests) keeps no log of its own and no .trs files: it ran what it could.
  '    [ -n "$log" ] || continue',
  `    make -k -j2 -C "$d" $noregen "$log" 2>&1 | grep -E ${RESULT_LINE}`,
  '    for t in $(printf \'chainsmith-tests:\\n\\t@echo $(TESTS)\\n\' | make -s -C "$d" $noregen -f Makefile -f - chainsmith-tests 2>/dev/null); do',
  '      [ -f "$d/${t%.*}.trs" ] || [ -f "$d/$t.trs" ] || { echo "FAIL: $t"; echo "chainsmith: $t did not build"; }',
  '    done',
  '  done',
  'fi',
  'exit $s',
].join('\n');
