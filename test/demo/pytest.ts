import { run } from '../../src/process/run';

/** Exit code of `python3 -m pytest <args>` in `cwd`: 0 passed, 1 tests failed, 2 collection errors. */
export async function runPytest(cwd: string, args: string[] = []): Promise<{ exitCode: number; output: string }> {
  // Keep the checkout clean: no __pycache__ or .pytest_cache between checkouts.
  const r = await run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...args], {
    cwd,
    env: { PYTHONDONTWRITEBYTECODE: '1' },
    maxOutputBytes: 64 * 1024 * 1024,
  });
  return { exitCode: r.exitCode ?? -1, output: r.stdout + r.stderr };
}
