import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { parseCaseLines } from '../../runners/case-lines';
import { ctestSelection } from './ctest-select';

/** The CMake build directory an environment configured (outside the working tree, so the image keeps it). */
export const CMAKE_BUILD_DIR = '/work/build';
const MARK = 'CHAINSMITH-CTEST';

/**
 * Rebuilds what the checkout changed, then runs CTest with a JUnit report, which a few lines of the
 * image's Python turn into one line per test and per case the test printed (Unity, GoogleTest, TAP).
 * The build keeps going past a target that fails to compile (`-k`): a new test that cannot build
 * before the gold change fails alone, and the other tests still run.
 */
const CONVERT = `python3 - /tmp/ctest-junit.xml <<'${MARK}-PY'
import re, sys, xml.etree.ElementTree as ET
# Only what looks like a case result is kept: the output stays small enough to arrive whole.
CASE = re.compile(r":(PASS|FAIL|IGNORE)\\b|^\\s*\\[\\s+(OK|FAILED|SKIPPED)\\s+\\]|^\\s*(not )?ok \\d")
# Colour codes (utest, GoogleTest's --gtest_color) go: as the program wrote them, or as CTest's report names them.
COLOUR = re.compile(r"(\\x1b|\\[NON-XML-CHAR-0x1B\\])\\[[0-9;]*m")
# A failed test's last lines, indented: CTest shows no program's output, and they say why it failed.
TAIL, TAILS = 10, 50
try: root = ET.parse(sys.argv[1]).getroot()
except Exception as e: print("${MARK} no report:", e); sys.exit(0)
for case in root.iter("testcase"):
    status = case.get("status") or ("failed" if case.find("failure") is not None else "run")
    out = COLOUR.sub("", case.findtext("system-out") or "").splitlines()
    print("${MARK}", status, case.get("name"))
    for line in out:
        if CASE.search(line): print("${MARK}-OUT", case.get("name"), line)
    if status not in ("run", "disabled", "notrun_skipped") and TAILS > 0:
        TAILS -= 1
        for line in out[-TAIL:]: print("    " + line)
${MARK}-PY`;

/**
 * The test programs CTest would run (those `tests` chose, where it is set) that this build did not remake (older than `since`), one a line:
 * after a failed build they may be the image's, built at another commit. Only programs the build makes:
 * compiled (ELF) files below the build folder, never a script of the source tree or a system binary.
 */
const NOT_REMADE = (since: string) => `python3 - ${since} "$tests" <<'${MARK}-EXE'
import json, os, subprocess, sys
since = os.path.getmtime(sys.argv[1])
chosen = ["-R", sys.argv[2]] if sys.argv[2] else []
try: tests = json.loads(subprocess.run(["ctest", "--show-only=json-v1", *chosen], capture_output=True, text=True).stdout)["tests"]
except Exception: tests = []
for t in tests:
    exe = (t.get("command") or [""])[0]
    real = os.path.realpath(exe)
    if not real.startswith(os.getcwd() + os.sep) or not os.path.isfile(real) or os.path.getmtime(real) >= since: continue
    with open(real, "rb") as f:
        if f.read(4) == b"\\x7fELF": print(real)
${MARK}-EXE`;

/**
 * Builds and runs the PR's own tests where its test files name them (ctest-select.ts), every test
 * otherwise: `targets` and `tests` empty build everything and run every test. A configuration that
 * registers no test fails the run (`--no-tests=error`): CTest would exit 0, a pass that checks nothing.
 */
function command(files: string[], override?: string): string {
  if (override) return override;
  const dir = `\${CHAINSMITH_BUILD_DIR:-${CMAKE_BUILD_DIR}}`;
  const log = '/tmp/chainsmith-build.log';
  const since = '/tmp/chainsmith-build-start';
  // The build and the test run first, as functions: a reason keeps the command's first 400 characters.
  return [
    `chainsmith_build() { cmake --build ${dir} \${targets:+--target $targets} -j2 -- -k; }`,
    `chainsmith_ctest() { (cd ${dir} && ctest \${tests:+-R "$tests"} --no-tests=error --timeout 300 --test-output-size-passed 200000 --test-output-size-failed 200000 --output-junit /tmp/ctest-junit.xml); }`,
    `touch ${since}`,
    ctestSelection(files, dir),
    // A test program whose target failed to build (a new test before the gold change, a stage older
    // than the image's commit) would otherwise run as the image left it: the programs not remade are
    // removed and the build goes once more, so those that can be remade are, and the others fail as missing.
    `if ! chainsmith_build >${log} 2>&1; then (cd ${dir} && ${NOT_REMADE(since)}
) | xargs -r rm -f; chainsmith_build >>${log} 2>&1; echo "the build failed (tests that need it will not run):"; grep -E 'error|Error' ${log} | head -n 30; fi`,
    'chainsmith_ctest >/tmp/ctest.log 2>&1; s=$?',
    'tail -n 40 /tmp/ctest.log',
    CONVERT,
    'exit $s',
  ].join('\n');
}

export function parseCtest(output: string): TestCase[] | undefined {
  const tests = new Map<string, TestCase['outcome']>();
  const printed = new Map<string, string[]>();
  for (const line of output.split('\n')) {
    const m = /^CHAINSMITH-CTEST (\w+) (.+)$/.exec(line);
    if (m)
      tests.set(
        m[2],
        m[1] === 'run' ? 'passed' : m[1] === 'disabled' || m[1] === 'notrun_skipped' ? 'skipped' : 'failed',
      );
    const o = /^CHAINSMITH-CTEST-OUT (\S+) (.*)$/.exec(line);
    if (o) printed.set(o[1], [...(printed.get(o[1]) ?? []), o[2]]);
  }
  if (!tests.size) return undefined;
  const cases: TestCase[] = [];
  for (const [name, outcome] of tests) {
    cases.push({ id: name, outcome });
    cases.push(...parseCaseLines((printed.get(name) ?? []).join('\n'), name));
  }
  return cases;
}

export const ctestRunner: TestRunner<'ctest'> = { name: 'ctest', command, parse: parseCtest };
