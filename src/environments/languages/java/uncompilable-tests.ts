import { RUN_DIR } from '../../runners/shell';
import { shellQuote } from '../../../process/shell-quote';

/**
 * Test sources the sandbox's JDK cannot compile, left out of a run. Every stage compiles on JDK 17
 * (detect.ts), whatever JDK its era built with; a test helper written against an API that JDK 9 to 17
 * removed (SecurityManager.checkTopLevelWindow, getInCheck, Thread.stop(Throwable)) fails the module's
 * whole test compile, and with it every test of the module: no test reported before or after the
 * change. Where a run's test compile fails and every source with an error is a test source that the
 * PR's tests are not (the PR's own may not compile before its change), those sources are set aside and
 * the run is made again, until it compiles, a PR test is among the errors, or ROUNDS runs have been
 * made (each round's errors can be in sources that used the ones left out). They are put back after
 * the run, and named in its output. Warnings (`[removal] …`, which forked javac through an old
 * plexus-compiler prints as [ERROR] lines) are no errors here.
 */

const ROUNDS = 5;
const LEFT_OUT = `${RUN_DIR}/chainsmith-left-out.tar`;
const PR_TESTS = `${RUN_DIR}/chainsmith-pr-tests`;

/** Puts back what a run left out (also from the run's TERM trap). */
export const RESTORE_LEFT_OUT = `if [ -f ${LEFT_OUT} ]; then tar -xf ${LEFT_OUT} && rm -f ${LEFT_OUT}; fi`;

/**
 * `run` (a Maven command whose console is in `log`, setting `status`), made again without the test
 * sources that fail to compile as described above; `prTests` are the PR's test files.
 */
export function leavingOutUncompilable(run: string, log: string, prTests: string[]): string {
  // A compile error's line: `[ERROR] /work/repo/m/src/test/java/a/B.java:[12,8] (error: )?message`, not `… [lint] message`.
  const errors = String.raw`sed -n -E "s#^\[ERROR\] $PWD/([^ :]*/)?(src/test/[^ :]*\.java):\[[0-9]+,[0-9]+\] (error: )?[^[ ].*#\1\2#p" ${log} | sort -u`;
  return [
    RESTORE_LEFT_OUT,
    `printf '%s\\n' ${prTests.map(shellQuote).join(' ') || "''"} > ${PR_TESTS}`,
    run,
    'round=1',
    `while [ "$status" -ne 0 ] && [ "$round" -lt ${ROUNDS} ] && grep -qE 'maven-compiler-plugin:[^ ]*:testCompile .*Compilation failure' ${log}; do`,
    `  bad=$(${errors})`,
    `  if [ -z "$bad" ] || printf '%s\\n' "$bad" | grep -qxF -f ${PR_TESTS}; then break; fi`,
    `  printf '%s\\n' "$bad" | tar -rf ${LEFT_OUT} -T - && printf '%s\\n' "$bad" | xargs rm -f || break`,
    `  echo "chainsmith: left out test sources this JDK cannot compile: $(printf '%s ' $bad)"`,
    '  round=$((round + 1))',
    `  ${run}`,
    'done',
    RESTORE_LEFT_OUT,
  ].join('\n');
}
