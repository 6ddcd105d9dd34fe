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

/** The last lines of a tool's complaint, for an error message. */
export function tail(text: string, lines = 25): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
