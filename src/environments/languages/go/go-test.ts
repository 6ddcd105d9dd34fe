import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { REPORT_END, reportStart, RUN_DIR, worse } from '../../runners/shell';
import { shellQuote } from '../../../process/shell-quote';

/**
 * Without vet: go test runs a subset of vet's checks on each package before its tests, and a finding
 * stops them (`[build failed]`). Vet's findings are not test outcomes, and its first run in a build
 * cache computes facts for every package the tests import, the standard library's included (about a
 * fifth of a gold run's CPU on cobra). Work left out, not shared: a test file vet would have refused
 * (a Printf verb that does not match its argument) now runs and is judged by its outcome.
 */
const GO_TEST = 'go test -json -count=1 -vet=off';
/**
 * The Go toolchain's own garbage collector spends about a tenth of a compile's CPU (profiled on cobra's
 * test builds: 2.2 CPU-s a run at GOGC 100, 1.95 at 400). Where the sandbox's memory is capped and the
 * caller set neither variable, `go` and the compiler and linker it starts collect at GOGC=400
 * under a soft limit of a third of the cap (two compiles and the go command side by side), so they use
 * no more memory than the cap allows, only more of what is idle. Outputs do not depend on the
 * collector, and GOGC is not in the build cache's keys. GOMEMLIMIT is read by Go 1.19 and later, the
 * oldest toolchain an environment here has.
 *
 * Where the sandbox's CPU quota is fewer CPUs than it can see and the caller did not set GOMAXPROCS,
 * the toolchain runs with GOMAXPROCS at the quota (rounded up): Go before 1.25 sizes itself by the CPUs
 * it sees, so on a one-CPU quota two threads of each compile and of the go command took turns at one
 * CPU's time, with the runtime's idle threads spinning for work between (profiled on cobra's root
 * package under a 1-CPU quota, five runs each: 2.85 CPU-s a run on a new tree where it was 2.94, 0.75
 * a run again on the same tree where it was 0.84). The compiles are the same, so are their outputs;
 * GOMAXPROCS is not in the build cache's keys either.
 *
 * The test binaries run with every variable set here unset (`-exec env -u …`), as they would be
 * without it: their collector, their GOMAXPROCS and what a test measures of them are as the project's own.
 */
const TOOLCHAIN_ENV = [
  'unset_env=()',
  `mem=$(cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null | grep -m1 -E '^[0-9]+$' || true)`,
  `if [ -z "\${GOGC-}" ] && [ -z "\${GOMEMLIMIT-}" ] && [ -n "$mem" ] && [ "$mem" -lt 1099511627776 ]; then export GOGC=400 GOMEMLIMIT=$((mem / 3)); unset_env+=(-u GOGC -u GOMEMLIMIT); fi`,
  // cgroup v2's cpu.max ("QUOTA PERIOD" or "max PERIOD"), else v1's quota (-1: none) and period.
  `quota=$(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null)")`,
  `cpus=$(echo "$quota" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $1 > 0 && $2 > 0 { print int(($1 + $2 - 1) / $2) }')`,
  `if [ -z "\${GOMAXPROCS-}" ] && [ -n "$cpus" ] && [ "$cpus" -lt "$(nproc 2>/dev/null || echo 0)" ]; then export GOMAXPROCS=$cpus; unset_env+=(-u GOMAXPROCS); fi`,
  `if [ \${#unset_env[@]} -gt 0 ]; then test_binary_exec=(-exec "env \${unset_env[*]}"); else test_binary_exec=(); fi`,
];
/**
 * A GOPATH-era repository (gopath.ts) is tested from the checkout's place in GOPATH, a link the image
 * holds: `cd` keeps PWD on the link, which the go command takes for the directory, so packages get their
 * import paths (and the ids their tests' names) instead of `_/work/repo/…`.
 */
export const GO_DIR_VAR = 'CHAINSMITH_GO_DIR';
const GOPATH_DIR = `if [ -n "\${${GO_DIR_VAR}-}" ]; then cd "$${GO_DIR_VAR}"; fi`;
const REPORT = reportStart('go test outcomes');
/** The compact report: `go-test-package: IMPORT/PATH`, then `pass TestName/sub` lines (names as JSON escapes them). */
const PACKAGE_LINE = /^go-test-package: (\S+)$/;
const CASE_LINE = /^(pass|fail|skip) (\S+)$/;
const OUTCOME: Record<string, TestCase['outcome']> = { pass: 'passed', fail: 'failed', skip: 'skipped' };

/**
 * The packages to test for the PR's test files: the directory of each `_test.go` file (a file under
 * `testdata/` belongs to the package above it). Anything else needs every package.
 */
export function goTestPackages(files: string[]): string[] | undefined {
  const packages = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    const testdata = parts.indexOf('testdata');
    let dir: string[];
    if (testdata >= 0) dir = parts.slice(0, testdata);
    else if (file.endsWith('_test.go')) dir = parts.slice(0, -1);
    else return undefined;
    packages.add(dir.length ? `./${dir.join('/')}` : '.');
  }
  return packages.size ? [...packages].sort() : undefined;
}

/**
 * Per-test outcomes of `go test -json`: ids are `IMPORT/PATH/TestName` with subtests as Go names them
 * (`…/TestName/sub_case`). Reads the compact lines the runner prints, or raw `-json` events. A
 * package that does not build reports a failure for the package only: its tests count as not passing.
 */
export function parseGoTest(output: string): TestCase[] | undefined {
  const cases = new Map<string, TestCase['outcome']>();
  const put = (pkg: string, test: string, action: string) => {
    const id = `${pkg}/${test}`;
    cases.set(id, worse(cases.get(id), OUTCOME[action]));
  };
  let pkg: string | undefined;
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    const header = PACKAGE_LINE.exec(line);
    if (header) {
      pkg = header[1];
      continue;
    }
    const compact = pkg ? CASE_LINE.exec(line) : null;
    if (pkg && compact) {
      const name = unescapeJson(compact[2]);
      if (name !== undefined) put(pkg, name, compact[1]);
      continue;
    }
    if (!line.startsWith('{') || !line.includes('"Action"')) continue;
    let event: { Action?: string; Package?: string; Test?: string };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event.Test && event.Package && event.Action && event.Action in OUTCOME)
      put(event.Package, event.Test, event.Action);
  }
  return cases.size ? [...cases].map(([id, outcome]) => ({ id, outcome })) : undefined;
}

function unescapeJson(s: string): string | undefined {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return undefined;
  }
}

/**
 * `go test -json` prints several events per test, far more than a capped output keeps, so the run's
 * events go to a file; the command prints the build errors and the failing tests' output, then one
 * compact line per outcome, and exits with go test's status.
 */
export const goRunner: TestRunner<'go'> = {
  name: 'go',
  command(files, override) {
    const packages = (goTestPackages(files) ?? ['./...']).map(shellQuote).join(' ');
    // The line that runs the tests comes first, as a function the toolchain's settings are made for: a
    // stage's reason keeps the head of its command (REASON_LIMITS.command), which then names the tests.
    const base =
      override ??
      [`go_test() { ${GO_TEST} "\${test_binary_exec[@]}" ${packages}; }`, ...TOOLCHAIN_ENV, GOPATH_DIR, 'go_test'].join(
        '\n',
      );
    const json = `${RUN_DIR}/chainsmith-go-test.json`;
    const err = `${RUN_DIR}/chainsmith-go-test.err`;
    return [
      `${base} > ${json} 2> ${err}; status=$?`,
      `tail -n 40 ${err}`,
      // What the tests printed (escaped as in the JSON), without the run/pass chatter, and from Go 1.24 on the
      // test builds' errors too (`build-output` events; older Go prints them on stderr).
      String.raw`sed -n -E 's/.*"Action":"(build-)?output".*"Output":"((\\.|[^"\\])*)".*/\2/p' ` +
        json +
        String.raw` | sed -E 's/\\n$//' | grep -vE '^(=== (RUN|PAUSE|CONT|NAME)|[[:space:]]*--- (PASS|SKIP)|PASS$|ok )' | tail -n 100`,
      `echo ${shellQuote(REPORT)}`,
      // One line per outcome, under a line per package: `go-test-package: IMPORT/PATH`, then `pass TestName`.
      String.raw`sed -n -E 's/.*"Action":"(pass|fail|skip)","Package":"([^"]*)","Test":"((\\.|[^"\\])*)".*/\1 \2 \3/p' ` +
        json +
        String.raw` | awk '$2 != p { p = $2; print "go-test-package: " p } { print $1, $3 }'`,
      `echo ${shellQuote(REPORT_END)}`,
      'exit $status',
    ].join('\n');
  },
  parse: parseGoTest,
};
