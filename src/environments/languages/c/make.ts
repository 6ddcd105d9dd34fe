import type { TestRunner } from '../../contract';
import { parseCaseLines } from '../../runners/case-lines';
import { shellQuote } from '../../../process/shell-quote';
import { ctestStems } from './ctest-select';
import { STOPPED_EARLY } from './make-stopped';

/**
 * Where a plain-make recipe (detect.ts) runs its suite and by which target, in the image's environment:
 * `make -k -C DIR TARGET`, the directory the root where unset, the target `test` where unset and the
 * Makefile's default where empty.
 */
export const MAKE_DIR = 'CHAINSMITH_MAKE_DIR';
export const MAKE_TARGET = 'CHAINSMITH_MAKE_TARGET';

const ARGS = `\${${MAKE_DIR}:+-C "$${MAKE_DIR}"} \${${MAKE_TARGET}-test}`;

/**
 * The whole test target; where it fails and stopped early (stopped_early: a failing command left a
 * later one of its recipe, or a recipe needing its target, unrun), once more with every command's error
 * ignored (`-i`): make stops a recipe at its first failing command, and a test target whose one recipe
 * builds and runs each test program in turn ran none after the first that failed, so a PR's new tests
 * in a later program had no result before or after the change. A run that left nothing unrun is not
 * repeated: the rerun would take as long and print the same. The exit status is the first run's; the
 * case lines a second run prints come last, and are the ones read.
 */
const SUITE = [
  STOPPED_EARLY,
  `o=$(mktemp); make -k ${ARGS} 2>&1 | tee "$o"; s=\${PIPESTATUS[0]}`,
  'if [ $s -ne 0 ] && stopped_early "$o"; then',
  `  echo "chainsmith: the test target failed and stopped early; again, every command of it run (make -i):"; make -i ${ARGS}`,
  'fi',
  'rm -f "$o" "$o.failed"; exit $s',
].join('\n');

/**
 * The PR's tests alone where each of its test files is a C/C++ source (ctestStems: a header, a data
 * file or a Makefile may change any test) whose stem names a target of its own folder's Makefile, or
 * of the suite's, that runs it: `test-fuzzer` or `check_parser` for tests/fuzzer.c or tests/parser.c.
 * A project's test target runs everything it has, fuzzers and benchmarks with time budgets of
 * minutes each included, where its per-program targets run what the PR's tests are; the whole suite
 * ran past the time limit, before and after the change. Otherwise the suite.
 */
function command(files: string[]): string {
  const stems = ctestStems(files);
  if (!stems || files.some((f) => !/^[\w-]+$/.test(stem(f)))) return SUITE;
  return [
    `run=; for f in ${files.map(shellQuote).join(' ')}; do`,
    '  d=${f%/*}; [ "$d" != "$f" ] || d=.; s=${f##*/}; s=${s%.*}; t=',
    `  for m in "$d" "\${${MAKE_DIR}:-.}"; do for n in test-$s test_$s check-$s check_$s; do`,
    '    grep -qsE "^$n[[:space:]]*:([^=]|$)" "$m/GNUmakefile" "$m/makefile" "$m/Makefile" && { t="$m:$n"; break 2; }',
    '  done; done',
    '  [ -n "$t" ] || { run=; break; }; run="$run $t"',
    'done',
    `if [ -z "$run" ]; then echo "chainsmith: the whole suite (the PR's test files name no target of their own)"`,
    SUITE,
    'fi',
    'echo "chainsmith: the PR\'s tests only:$run"; s=0',
    'for t in $run; do make -k -C "${t%%:*}" "${t#*:}" || s=$?; done; exit $s',
  ].join('\n');
}

const stem = (file: string) => (file.split('/').pop() ?? '').replace(/\.[^.]*$/, '');

/** `make test` (or `make check`), read per case where the tests print Unity, GoogleTest or TAP lines. */
export const makeRunner: TestRunner<'make'> = {
  name: 'make',
  command: (files, override) => override ?? command(files),
  parse: (output) => {
    const cases = parseCaseLines(output);
    return cases.length ? cases : undefined;
  },
};
