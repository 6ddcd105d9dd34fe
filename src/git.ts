import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { ChainsmithError } from './errors';

const execFileAsync = promisify(execFile);

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
  if (options.input !== undefined) return gitWithInput(cwd, args, options.input, options.env);
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
    throw new GitError(args, failure.code, failure.stderr ?? '', { cause: error });
  }
}

function gitWithInput(cwd: string, args: readonly string[], input: string, env?: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...args], { cwd, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // git may exit before reading all input (a bad argument); that EPIPE is reported through the exit code.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => reject(new GitError(args, undefined, error.message, { cause: error })));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new GitError(args, code ?? undefined, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.end(input);
  });
}
