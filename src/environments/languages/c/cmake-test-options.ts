/** A cache option whose name says it builds or enables tests: gtest_build_tests, FOO_BUILD_UNIT_TESTS, ENABLE_TESTING, FMT_TEST. */
const TEST_OPTION = '(^|_)(build|enable|with|use)_([a-z0-9]+_)*test(s|ing)?$|^[a-z0-9]+_tests?$';
/** One that says the opposite (FOO_SKIP_TESTS, NO_TESTS, JANSSON_WITHOUT_TESTS), or CMake's own. */
const NOT_TEST_OPTION = '(^|_)(skip|disable|no|not|without|exclude)(_|$)|^cmake_';

/**
 * Shell run once CMake has configured `dir`: turns on the project's own options that build its tests
 * where they are off. BUILD_TESTING is CTest's switch, but many projects build their tests only under
 * an option of their own that is off by default (googletest's `gtest_build_tests`, `FOO_BUILD_TESTS`),
 * and then CTest finds none. Where the configuration fails with them on (their tests need what the
 * image lacks), they are turned off again and the project stays as it was configured.
 */
export function cmakeTestOptions(dir: string, source = '.'): string {
  return [
    `on=$(cmake -LA -N ${dir} | sed -n 's/^\\([A-Za-z0-9_]*\\):BOOL=OFF$/\\1/p' | grep -iE '${TEST_OPTION}' | grep -viE '${NOT_TEST_OPTION}' || true)`,
    `if [ -n "$on" ]; then echo "chainsmith: the project's test options on:" $on; cmake -S ${source} -B ${dir} $(printf -- '-D%s=ON ' $on) || cmake -S ${source} -B ${dir} $(printf -- '-D%s=OFF ' $on); fi`,
  ].join('\n');
}
