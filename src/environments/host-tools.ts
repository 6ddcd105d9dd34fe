import { spawn } from 'node:child_process';

export interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a host tool (uv, pip, npm, git) with the host's own configuration: the inherited environment,
 * plus `env` (undefined removes a variable). Output is kept whole up to a few megabytes (resolvers explain failures at length).
 */
export function runTool(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; signal?: AbortSignal } = {},
): Promise<ToolRun> {
  return new Promise((resolve) => {
    // A variable given as undefined is removed from what the tool sees.
    const env = { ...process.env, ...opts.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    const child = spawn(cmd, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal });
    let stdout = '';
    let stderr = '';
    const cap = (s: string) => (s.length > 4_000_000 ? s.slice(-4_000_000) : s);
    child.stdout.on('data', (d) => (stdout = cap(stdout + d)));
    child.stderr.on('data', (d) => (stderr = cap(stderr + d)));
    child.on('error', (err) => resolve({ code: -1, stdout, stderr: `${stderr}${err.message}` }));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The last lines of a tool's complaint, for an error message. */
export function tail(text: string, lines = 25): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
