import { LANGUAGES } from '../environments/languages';
import type { FileKind } from '../schemas';

/** Test directories in any language; each language adds its own (languages/<lang>/index.ts). */
const TEST_DIRECTORIES = new Set(['test', 'tests', ...LANGUAGES.flatMap((l) => l.files.testDirectories ?? [])]);

/** Test files by name, as each language writes them. */
const TEST_FILE_NAMES = LANGUAGES.flatMap((l) => l.files.tests);

/** Code of the languages chainsmith builds, and of others it mines but builds no environment for. */
const CODE_EXTENSIONS = new Set([
  ...LANGUAGES.flatMap((l) => l.files.code),
  'kt',
  'scala',
  'cs',
  'rb',
  'php',
  'swift',
  'm',
  'sh',
  'lua',
  'r',
  'jl',
]);

/** Directories of code someone else wrote (vendored, bundled, installed), by their usual names. */
const VENDORED_DIRECTORIES = new Set([
  'vendor',
  'vendored',
  'third_party',
  'third-party',
  'thirdparty',
  'node_modules',
  'bower_components',
]);

/** Files a tool writes: protobuf and gRPC stubs, minified bundles, Go's generated files, and the like. */
const GENERATED_FILE_NAMES = [
  /\.pb\.(go|cc|h|c)$/,
  /_pb2(_grpc)?\.pyi?$/,
  /\.min\.(js|css)$/,
  /(^|[._-])generated\.[a-z]+$/i,
  /^zz_generated\./,
  /\.g\.dart$/,
  /\.designer\.cs$/,
];

/**
 * Sorts a changed path into test, code or other. Tests win over code so that a PR's own tests
 * can be told apart from the change they check; docs and config count as other, and so do vendored
 * and generated code: nobody in the repository wrote its lines, so rewriting them links no PRs, and a
 * PR that only updates them changes no code of the project's own.
 */
export function fileKind(path: string): FileKind {
  const segments = path.split('/');
  const name = segments[segments.length - 1];
  // Exact names: a project's own `Vendor/` module is its code.
  if (segments.slice(0, -1).some((segment) => VENDORED_DIRECTORIES.has(segment))) return 'other';
  if (segments.slice(0, -1).some((segment) => TEST_DIRECTORIES.has(segment.toLowerCase()))) return 'test';
  if (TEST_FILE_NAMES.some((pattern) => pattern.test(name))) return 'test';
  if (GENERATED_FILE_NAMES.some((pattern) => pattern.test(name))) return 'other';
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  return CODE_EXTENSIONS.has(extension) ? 'code' : 'other';
}

/** Whether a PR's files hold a test file: what `PullRequestRecord.changesTests` says. */
export function changesTests(files: readonly { kind: FileKind }[]): boolean {
  return files.some((file) => file.kind === 'test');
}

/** Whether a PR changes a test: its record's word, or its files where an older record has none. */
export function prChangesTests(pr: { changesTests?: boolean; files: readonly { kind: FileKind }[] }): boolean {
  return pr.changesTests ?? changesTests(pr.files);
}
