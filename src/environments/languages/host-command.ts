import { StageError } from '../../errors';
import { stageReason } from '../../stage-reason';
import { runTool, type ToolRun } from '../host-tools';

/** Runs a host tool and throws a StageError with the end of its complaint when it fails. */
export async function mustRun(
  what: string,
  cmd: string,
  args: string[],
  opts: Parameters<typeof runTool>[2],
): Promise<ToolRun> {
  const run = await runTool(cmd, args, opts);
  if (run.code !== 0) {
    const tail = `${run.stdout}\n${run.stderr}`.trim().split('\n').slice(-30).join('\n');
    const reason = stageReason('dependencies-unresolvable', `${what} failed`, {
      command: [cmd, ...args].join(' '),
      exitCode: run.code,
      output: `${run.stdout}\n${run.stderr}`,
    });
    throw new StageError(`${what} failed (${cmd} ${args.join(' ')}, exit ${run.code}):\n${tail}`, { reason });
  }
  return run;
}

/** The first line of `cmd --version` ('cargo 1.95.0 (…)'), or the command's name where it has none. */
export async function toolVersion(cmd: string, args = ['--version'], cwd = '/'): Promise<string> {
  const run = await runTool(cmd, args, { cwd });
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
