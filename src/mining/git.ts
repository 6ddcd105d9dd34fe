import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GitCommandError } from './errors';

const execFileAsync = promisify(execFile);

/** Patches of large PRs run to tens of megabytes; the default 1 MB buffer would cut them off. */
const MAX_BUFFER = 256 * 1024 * 1024;

export interface GitOptions {
  /** Extra environment on top of the inherited one (minus GIT_* variables). */
  env?: Record<string, string>;
}

/**
 * Inherited GIT_DIR, GIT_INDEX_FILE and friends (set when running inside a git hook, for example)
 * would point every command at another repository, so they are dropped.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs `git <args>` in `cwd` and returns stdout; a non-zero exit throws GitCommandError. */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync('git', [...args], {
      cwd,
      env: cleanEnv(options.env),
      maxBuffer: MAX_BUFFER,
      encoding: 'utf8',
    });
    return stdout;
  } catch (error) {
    const failure = error as { code?: number | string; stderr?: string };
    throw new GitCommandError(args, failure.code, failure.stderr ?? '', { cause: error });
  }
}
