import { execFile } from 'node:child_process';

/** Exit code of `python3 -m pytest <args>` in `cwd`: 0 passed, 1 tests failed, 2 collection errors. */
export function runPytest(cwd: string, args: string[] = []): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      'python3',
      ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...args],
      // Keep the checkout clean: no __pycache__ or .pytest_cache between checkouts.
      { cwd, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ exitCode: typeof code === 'number' ? code : -1, output: stdout + stderr });
      },
    );
  });
}
