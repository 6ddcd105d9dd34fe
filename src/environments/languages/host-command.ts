import { spawn } from 'node:child_process';
import { StageError } from '../../errors';

export interface HostRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a package manager on the host with the host's own configuration (inherited environment and
 * config files), plus `env`. Output is kept up to a few megabytes: resolvers explain failures at length.
 */
export function hostRun(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; signal?: AbortSignal }): Promise<HostRun> {
  return new Promise((resolve) => {
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

/** Runs a host tool and throws a StageError with the end of its complaint when it fails. */
export async function mustRun(what: string, cmd: string, args: string[], opts: Parameters<typeof hostRun>[2]): Promise<HostRun> {
  const run = await hostRun(cmd, args, opts);
  if (run.code !== 0) {
    const tail = `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-30).join('\n');
    throw new StageError(`${what} failed (${cmd} ${args.join(' ')}, exit ${run.code}):\n${tail}`);
  }
  return run;
}

/** The first line of `cmd --version` ('cargo 1.95.0 (…)'), or the command's name where it has none. */
export async function toolVersion(cmd: string, args = ['--version'], cwd = '/'): Promise<string> {
  const run = await hostRun(cmd, args, { cwd });
  return run.code === 0 ? (run.stdout || run.stderr).trim().split('\n')[0] : cmd;
}

/** Compares dotted versions numerically ('1.63' < '1.71.1'); missing parts count as 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((p) => parseInt(p, 10) || 0);
  const pb = b.split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}
