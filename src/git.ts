import { ChainsmithError } from './errors';
import { run } from './process/run';

/** Patches of large PRs and logs of long histories run to tens of megabytes; the default 1 MB would cut them off. */
const MAX_BUFFER = 512 * 1024 * 1024;

/**
 * A git command exited non-zero (or could not start); `stderr` says why. Its own class, not a mining
 * error: mining, the sandbox host, environments and the demo all run git, and each decides what a
 * failure means there (a bad clone to mine is the user's input; a missing commit on a sandbox host
 * fails the stage).
 */
export class GitError extends ChainsmithError {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | string | undefined,
    readonly stderr: string,
    options?: { cause?: unknown },
  ) {
    super(`git ${args.join(' ')} failed (${exitCode ?? 'no exit code'}): ${stderr.trim()}`, options);
  }
}

export interface GitOptions {
  /** Extra environment on top of the inherited one (minus GIT_* variables). */
  env?: Record<string, string>;
  /** Written to git's stdin (for the --stdin modes that batch many questions into one process). */
  input?: string;
}

/**
 * Inherited GIT_DIR, GIT_INDEX_FILE and friends (set when running inside a git hook, for example)
 * would point every command at another repository, so they are dropped.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GIT_')) env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs `git <args>` in `cwd` and returns stdout; a non-zero exit throws GitError. */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const r = await run('git', args, {
    cwd,
    baseEnv: cleanEnv(),
    env: options.env,
    input: options.input,
    maxOutputBytes: MAX_BUFFER,
  });
  if (r.startError) throw new GitError(args, undefined, r.startError.message, { cause: r.startError });
  if (r.exitCode !== 0) throw new GitError(args, r.exitCode ?? r.signal ?? undefined, r.stderr);
  if (r.truncated) throw new GitError(args, 0, `its output is over ${MAX_BUFFER} bytes`);
  return r.stdout;
}
