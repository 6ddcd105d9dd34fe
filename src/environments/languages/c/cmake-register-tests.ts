/** Where the image keeps the CMake script below (outside the working tree, as the build directories). */
const DIR = '/work/.chainsmith-cmake';
export const REGISTER_TESTS_SCRIPT = `${DIR}/register-tests.cmake`;
const MARK = 'CHAINSMITH-CMAKE-REGISTER';

/**
 * CMake code, read after the top project() of a configuration (CMAKE_PROJECT_INCLUDE), that defers to
 * the end of the top CMakeLists.txt: there, where no directory of the project registered a CTest test,
 * every executable the build makes becomes one, named as its target. A test folder's own CMake project
 * (a header-only library's `test/CMakeLists.txt`) builds its test programs and its CI runs them one by
 * one, with no add_test: CTest found none, and no stage of it could run a test. Programs left out of
 * the default build (EXCLUDE_FROM_ALL) are not built, and are no tests here.
 */
const SCRIPT = `get_property(done GLOBAL PROPERTY CHAINSMITH_REGISTER_TESTS)
if(NOT done AND CMAKE_CURRENT_SOURCE_DIR STREQUAL CMAKE_SOURCE_DIR)
  set_property(GLOBAL PROPERTY CHAINSMITH_REGISTER_TESTS 1)
  function(chainsmith_register_tests)
    set(dirs "\${CMAKE_SOURCE_DIR}")
    set(tests "")
    set(programs "")
    while(dirs)
      list(POP_FRONT dirs dir)
      get_property(registered DIRECTORY "\${dir}" PROPERTY TESTS)
      get_property(subdirs DIRECTORY "\${dir}" PROPERTY SUBDIRECTORIES)
      get_property(targets DIRECTORY "\${dir}" PROPERTY BUILDSYSTEM_TARGETS)
      list(APPEND tests \${registered})
      list(APPEND dirs \${subdirs})
      foreach(target IN LISTS targets)
        get_property(type TARGET "\${target}" PROPERTY TYPE)
        get_property(excluded TARGET "\${target}" PROPERTY EXCLUDE_FROM_ALL)
        if(type STREQUAL "EXECUTABLE" AND NOT excluded)
          list(APPEND programs "\${target}")
        endif()
      endforeach()
    endwhile()
    if(tests OR NOT programs)
      return()
    endif()
    message(STATUS "chainsmith: no test registered; the test programs: \${programs}")
    foreach(program IN LISTS programs)
      add_test(NAME "\${program}" COMMAND "\${program}")
    endforeach()
  endfunction()
  # Here, in the top directory's scope: enable_testing() in a function would set its flag there only.
  enable_testing()
  cmake_language(DEFER DIRECTORY "\${CMAKE_SOURCE_DIR}" CALL chainsmith_register_tests)
endif()
`;

/** Setup that writes the script where CMAKE_PROJECT_INCLUDE names it; the image keeps it for every reconfiguration. */
export const WRITE_REGISTER_TESTS = `mkdir -p ${DIR} && cat >${REGISTER_TESTS_SCRIPT} <<'${MARK}'
${SCRIPT}${MARK}`;
