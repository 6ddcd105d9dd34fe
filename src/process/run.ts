import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { TailBuffer } from './tail-buffer';

export interface RunOptions {
  cwd?: string;
  /** The environment to start from (default: this process's); `env` is laid over it. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Variables on top of `baseEnv`; one given as undefined is removed. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
  /** After this long the process group gets SIGTERM, and SIGKILL `KILL_GRACE_MS` later. */
  timeoutMs?: number;
  /** Aborting stops the process group as a timeout does. */
  signal?: AbortSignal;
  /** A process group of its own, so that stopping it reaches everything it started (implied by `timeoutMs` and `signal`). */
  ownGroup?: boolean;
  /** Bytes of each of stdout and stderr kept (the last ones; default 4 MB). */
  maxOutputBytes?: number;
  /** Each piece of output as it comes (progress lines of a long run). */
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
}

/** How a process ended. A non-zero exit is a result, not a throw (the caller decides what it means). */
export interface RunResult {
  /** Its exit code; null where it did not exit by itself (killed by a signal, or never started). */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Some output was dropped to stay within maxOutputBytes (the start of it: the end is kept). */
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** Why it could not start (ENOENT: no such command), where it did not. */
  startError?: Error;
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;
/** How long a stopped process group has for SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/**
 * The one way chainsmith runs a child process to its end. A run that may have to be stopped (a timeout,
 * an abort signal, `ownGroup`) gets a process group of its own, so stopping it reaches everything it started (a
 * shell's pipeline, a build's compilers), not only its first process; one that may not stays in ours, so
 * a Ctrl-C at the terminal reaches it as it reaches us. Output is kept up to a bound, its end kept.
 */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const stoppable = opts.ownGroup ?? (opts.timeoutMs !== undefined || opts.signal !== undefined);
  const limit = opts.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  return new Promise((resolve) => {
    const stdout = new TailBuffer(limit);
    const stderr = new TailBuffer(limit);
    const outcome = { timedOut: false, aborted: false };
    let child: ChildProcess;
    try {
      child = spawn(cmd, [...args], {
        cwd: opts.cwd,
        env: environment(opts.baseEnv ?? process.env, opts.env),
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: stoppable,
      });
    } catch (err) {
      // A bad cwd or argument throws at once rather than emitting 'error'.
      resolve(notStarted(err));
      return;
    }
    live.set(child, stoppable);
    const stop = (why: 'timedOut' | 'aborted') => {
      if (outcome.timedOut || outcome.aborted) return;
      outcome[why] = true;
      stopChild(child, 'SIGTERM');
      killer = setTimeout(() => stopChild(child, 'SIGKILL'), KILL_GRACE_MS);
    };
    let killer: NodeJS.Timeout | undefined;
    const timer = opts.timeoutMs === undefined ? undefined : setTimeout(() => stop('timedOut'), opts.timeoutMs);
    const onAbort = () => stop('aborted');
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });

    // One decoder a stream: a character whose bytes two chunks split reaches the callback whole.
    const outText = new StringDecoder('utf8');
    const errText = new StringDecoder('utf8');
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      if (opts.onStdout) emit(opts.onStdout, outText.write(chunk));
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      if (opts.onStderr) emit(opts.onStderr, errText.write(chunk));
    });
    if (child.stdin) {
      // A process may exit before reading all its input (a bad argument); its exit code says so.
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    }
    let startError: Error | undefined;
    child.on('error', (err) => (startError = err));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killer);
      opts.signal?.removeEventListener('abort', onAbort);
      live.delete(child);
      if (opts.onStdout) emit(opts.onStdout, outText.end());
      if (opts.onStderr) emit(opts.onStderr, errText.end());
      resolve({
        exitCode: startError ? null : code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.dropped || stderr.dropped,
        ...outcome,
        ...(startError ? { startError } : {}),
      });
    });
  });
}

const emit = (callback: (chunk: string) => void, text: string) => {
  if (text) callback(text);
};

/** The children started by `run` that have not ended yet, and whether each leads a process group. */
const live = new Map<ChildProcess, boolean>();

/**
 * Stops every child `run` started that is still running: SIGTERM, and SIGKILL to what is left after
 * KILL_GRACE_MS. For a process that is asked to end (a bench on SIGINT or SIGTERM): its children would
 * otherwise run on without it. Resolves when they have all exited: not when their output closes, which
 * a background process of a child outside a group of its own can hold open long after (it is out of reach).
 */
export async function stopAllChildren(): Promise<void> {
  const children = [...live.keys()];
  const ended = children.map(
    (child) =>
      new Promise((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve),
      ),
  );
  for (const child of children) stopChild(child, 'SIGTERM');
  const killer = setTimeout(() => children.forEach((child) => stopChild(child, 'SIGKILL')), KILL_GRACE_MS);
  await Promise.all(ended);
  clearTimeout(killer);
}

/** Signals the child's process group where it leads one, else the child alone; one already gone is left. */
function stopChild(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // A detached child was started with setsid: its pid is its group's id.
    if (live.get(child)) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // ESRCH: the group has ended meanwhile.
  }
}

function environment(base: NodeJS.ProcessEnv, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...base, ...extra };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}

function notStarted(err: unknown): RunResult {
  const startError = err instanceof Error ? err : new Error(String(err));
  return {
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    truncated: false,
    timedOut: false,
    aborted: false,
    startError,
  };
}
