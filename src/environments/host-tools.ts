import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from '../process/run';

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a host tool (uv, pip, npm, git) with the host's own configuration: the inherited environment,
 * plus `env` (undefined removes a variable). Output is kept whole up to a few megabytes (resolvers
 * explain failures at length). Code -1: it did not start, or was stopped.
 */
export async function runTool(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; signal?: AbortSignal } = {},
): Promise<ToolRun> {
  const r = await run(cmd, args, opts);
  return {
    code: r.exitCode ?? -1,
    stdout: r.stdout,
    stderr: r.startError ? `${r.stderr}${r.startError.message}` : r.stderr,
  };
}

/** Size and modification time of each file ('missing' for one that is not there): they change when a host installation is replaced. */
export function filesFingerprint(files: string[]): string {
  return files
    .map((f) => statSync(f, { throwIfNoEntry: false }))
    .map((s) => (s ? `${s.size}:${Math.round(s.mtimeMs)}` : 'missing'))
    .join(',');
}

/** The last lines of a tool's complaint, for an error message. */
export function tail(text: string, lines = 25): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** Where host tools are kept between builds when a fetch is given no tools directory (FetchContext.toolsDir). */
export function toolsDirOf(given: string | undefined): string {
  return given ?? join(homedir(), '.chainsmith', 'tools');
}

/**
 * A host tool made once under `dir`, ready where `ready` (a path inside it) exists. Else `make` fills a
 * fresh directory beside it and returns the directory of what it made (that one or one inside it), which
 * is renamed into place: a make cut short leaves nothing half there. Where another make got there first,
 * theirs stays. Returns `dir`.
 */
export async function madeOnce(dir: string, ready: string, make: (tmp: string) => Promise<string>): Promise<string> {
  if (existsSync(ready)) return dir;
  await mkdir(dirname(dir), { recursive: true });
  const tmp = await mkdtemp(`${dir}.making-`);
  try {
    const made = await make(tmp);
    await rename(made, dir).catch((err: unknown) => {
      if (!existsSync(ready)) throw err;
    });
    return dir;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
