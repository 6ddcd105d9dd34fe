import type { RepoFiles } from '../../contract';

/** A word of CMake's test machinery: CTest, enable_testing, add_test, gtest_discover_tests, catch_discover_tests, … */
const TESTING = /\b(enable_testing|ctest|add_test|\w+_(discover|add)_tests)\b/i;
const CALL = /\b(add_subdirectory|include)\s*\(\s*"?([^\s")]+)/gi;
/** Where projects keep the modules they include by name; a name found in none is CMake's own (GNUInstallDirs). */
const MODULE_DIRS = ['cmake', 'CMake', 'cmake/modules', 'cmake/Modules'];
const MAX_FILES = 200;

/**
 * Whether the root CMake project may register a CTest test: a word of CTest's machinery in its
 * CMakeLists.txt or in a file it reaches through add_subdirectory or include. A project that builds its
 * library with CMake for its users and its tests with a test folder's own Makefile never calls
 * enable_testing(), and CTest finds no test in its build. Any path that cannot be told (a variable
 * other than the source directories', too many files) counts as one that may.
 */
export async function cmakeMayRegisterTests(files: RepoFiles): Promise<boolean> {
  const seen = new Set<string>();
  const queue = ['CMakeLists.txt'];
  while (queue.length) {
    const file = queue.shift() as string;
    if (seen.has(file)) continue;
    if (seen.size >= MAX_FILES) return true;
    seen.add(file);
    const text = await files.read(file);
    if (text === undefined) return true;
    if (TESTING.test(text)) return true;
    const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.';
    for (const [, command, arg] of text.matchAll(CALL)) {
      const path = arg
        .replace(/^\$\{(CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/, '.')
        .replace(/^\$\{(CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/, dir);
      if (path.includes('$')) return true;
      const from = path === arg ? `${dir}/${path}` : path;
      if (command.toLowerCase() === 'add_subdirectory') queue.push(normal(`${from}/CMakeLists.txt`));
      else if (path.includes('/') || path.endsWith('.cmake')) queue.push(normal(from));
      else
        for (const d of MODULE_DIRS)
          if ((await files.read(`${d}/${path}.cmake`)) !== undefined) queue.push(`${d}/${path}.cmake`);
    }
  }
  return false;
}

/** `a/./b/../c` → `a/c`. */
function normal(path: string): string {
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '..') parts.pop();
    else if (p && p !== '.') parts.push(p);
  }
  return parts.join('/');
}
