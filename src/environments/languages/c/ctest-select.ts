import { shellQuote } from '../../../process/shell-quote';

/** C and C++ sources: a PR's test file of these names its test by its stem (tests/misc_tests.c → `misc_tests`). */
const SOURCE = /\.(c|cc|cpp|cxx)$/;
const MARK = 'CHAINSMITH-CTEST-SELECT';

/**
 * The stems of the PR's test files where each is a C/C++ source that can name a CTest test: its test
 * (by name) or its test program (by file name). Undefined where any is something else, so the whole
 * suite runs: a header or a shared source (unity_setup.c, common.c) is compiled into tests it does not
 * name; a CMakeLists.txt may change any test's registration or flags; a data file is read by tests
 * its name does not tell.
 */
export function ctestStems(files: string[]): string[] | undefined {
  const stems = new Set<string>();
  for (const file of files) {
    if (!SOURCE.test(file)) return undefined;
    const stem = (file.split('/').pop() ?? '').replace(SOURCE, '');
    if (!/^[\w.+-]+$/.test(stem)) return undefined;
    stems.add(stem);
  }
  return stems.size ? [...stems].sort() : undefined;
}

/**
 * Python (the C image has it) run in the CMake build directory that prints, on two lines, the build
 * targets and the CTest regular expression of the tests the stems name; nothing where they cannot be
 * told apart, and the caller then builds and runs everything. It reads the configuration CTest and
 * make know (`ctest --show-only=json-v1`, `make help`), so it must run after CMake has re-configured
 * for the tree (make's cmake_check_build_system). Every stem must name a test. A chosen test whose
 * program is not a build product (a script, an interpreter), one that needs other tests (DEPENDS,
 * fixtures) or one whose command names a build product that is no target of its own falls back to
 * everything: building only its target would leave those as the image had them.
 */
function selectScript(stems: string[]): string {
  return `python3 - ${stems.map(shellQuote).join(' ')} <<'${MARK}'
import json, os, re, subprocess, sys
stems = set(sys.argv[1:])
build = os.path.realpath(os.getcwd())
try:
    tests = json.loads(subprocess.run(["ctest", "--show-only=json-v1"], capture_output=True, text=True).stdout)["tests"]
    known = set(re.findall(r"^\\.\\.\\. (\\S+)", subprocess.run(["make", "help"], capture_output=True, text=True).stdout, re.M))
except Exception:
    sys.exit(0)
def stem(path): return os.path.splitext(os.path.basename(path))[0]
chosen, named, targets = [], set(), set()
for t in tests:
    command = t.get("command") or [""]
    hit = {s for s in (t.get("name"), stem(command[0])) if s in stems}
    if hit: chosen.append(t); named |= hit
if named != stems: sys.exit(0)
for t in chosen:
    if {p.get("name") for p in t.get("properties", [])} & {"DEPENDS", "FIXTURES_REQUIRED", "FIXTURES_SETUP", "FIXTURES_CLEANUP"}: sys.exit(0)
    command = t.get("command") or [""]
    if not os.path.realpath(command[0]).startswith(build + os.sep): sys.exit(0)
    for arg in command:
        real = os.path.realpath(arg) if arg.startswith("/") else ""
        if not real.startswith(build + os.sep): continue
        if stem(real) not in known: sys.exit(0)
        targets.add(stem(real))
print(" ".join(sorted(targets)))
print("^(" + "|".join(re.sub(r"([][.^$*+?()|\\\\{}])", r"\\\\\\1", t["name"]) for t in chosen) + ")$")
${MARK}`;
}

/**
 * Shell that sets `targets` (for `cmake --build --target`) and `tests` (for `ctest -R`) to the PR's
 * own tests where its test files name them (ctestStems), or leaves both empty: everything builds and
 * runs. A PR's test program is built with what it links (the library under test), not every other
 * test program: a change to a header every test includes would otherwise recompile them all, in each
 * run. The choice is made in each run from that run's configuration, by the same rule.
 */
export function ctestSelection(files: string[], dir: string): string {
  const stems = ctestStems(files);
  if (!stems) return 'targets=; tests=\n';
  return [
    `sel=; if make -C ${dir} cmake_check_build_system >/tmp/chainsmith-select.log 2>&1; then sel=$(cd ${dir} && ${selectScript(stems)}`,
    '); fi',
    `targets=$(printf '%s\\n' "$sel" | sed -n 1p); tests=$(printf '%s\\n' "$sel" | sed -n 2p)`,
    `if [ -n "$tests" ]; then echo "chainsmith: the PR's tests only: $tests"; else echo "chainsmith: every test (the PR's test files name no test apart)"; fi`,
    '',
  ].join('\n');
}
