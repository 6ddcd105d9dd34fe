import { run } from '../../src/process/run';

/** One published release of a project: its source tree as the registry serves it, and when it was published. */
export interface Release {
  version: string;
  /** ISO time of publication, where the registry records one; undefined where it does not (crates.io's index). */
  date?: string;
  /** The extracted source tree (the registry's archive unpacked, its top directory stripped). */
  dir: string;
}

/** Runs a host command and returns its stdout; a failure throws with the command and its last lines. */
export async function must(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<string> {
  const r = await run(cmd, args, { ...opts, timeoutMs: 600_000 });
  if (r.exitCode !== 0) {
    const lines = `${r.stderr}${r.stdout}${r.startError?.message ?? ''}`.trim().split('\n');
    // Maven ends with its advice; its first [ERROR] line is the cause.
    const cause = lines.filter((l) => /^\[ERROR\] \S/.test(l)).slice(0, 2);
    const tail = (cause.length ? cause : lines.slice(-5)).join('\n');
    throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} exited ${r.exitCode ?? r.signal}: ${tail}`);
  }
  return r.stdout;
}

/** The last `count` of `versions` (oldest first), or an error where the registry lists fewer. */
export function lastReleases(name: string, versions: string[], count: number): string[] {
  if (versions.length < count)
    throw new Error(`${name}: the registry lists ${versions.length} release(s), ${count} are needed`);
  return versions.slice(-count);
}
