import type { FileKind } from '../schemas';

const TEST_DIRECTORIES = new Set(['test', 'tests', '__tests__']);

const TEST_FILE_NAMES = [/^test_.*\.py$/, /_test\.(py|go)$/, /\.(test|spec)\.[cm]?[jt]sx?$/];

const CODE_EXTENSIONS = new Set([
  'py', 'pyx', 'pyi', 'ts', 'tsx', 'js', 'jsx', 'mjs', 'cjs', 'go', 'rs', 'java', 'kt', 'scala',
  'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'cs', 'rb', 'php', 'swift', 'm', 'sh', 'lua', 'r', 'jl',
]);

/**
 * Sorts a changed path into test, code or other. Tests win over code so that a PR's own tests
 * can be told apart from the change they check; docs and config count as other.
 */
export function fileKind(path: string): FileKind {
  const segments = path.split('/');
  const name = segments[segments.length - 1];
  if (segments.slice(0, -1).some((segment) => TEST_DIRECTORIES.has(segment.toLowerCase()))) return 'test';
  if (TEST_FILE_NAMES.some((pattern) => pattern.test(name))) return 'test';
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return CODE_EXTENSIONS.has(extension) ? 'code' : 'other';
}
