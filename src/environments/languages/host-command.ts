import { StageError } from '../../errors';
import { stageReason } from '../../stage-reason';
import type { StageReasonKind } from '../../schemas';
import { runTool, type ToolRun } from '../host-tools';

/** What a tool's failed output says went wrong, where it names a cause other than a dependency fetch. */
export type Explain = (output: string) => { kind: StageReasonKind; summary: string } | undefined;

/**
 * Runs a host tool and throws a StageError with the end of its complaint when it fails: the stage's
 * reason is `dependencies-unresolvable`, unless `explain` reads another cause in the output.
 */
export async function mustRun(
  what: string,
  cmd: string,
  args: string[],
  opts: Parameters<typeof runTool>[2],
  explain?: Explain,
): Promise<ToolRun> {
  const run = await runTool(cmd, args, opts);
  if (run.code !== 0) throw toolFailure(what, cmd, args, run, explain);
  return run;
}

/** The StageError of a host tool's failed run (mustRun's): `dependencies-unresolvable` unless `explain` reads another cause. */
export function toolFailure(what: string, cmd: string, args: string[], run: ToolRun, explain?: Explain): StageError {
  const output = `${run.stdout}\n${run.stderr}`;
  const tail = output.trim().split('\n').slice(-30).join('\n');
  const { kind, summary } = explain?.(output) ?? { kind: 'dependencies-unresolvable', summary: `${what} failed` };
  const reason = stageReason(kind, summary, { command: [cmd, ...args].join(' '), exitCode: run.code, output });
  return new StageError(`${summary} (${cmd} ${args.join(' ')}, exit ${run.code}):\n${tail}`, { reason });
}

/** The first line of `cmd --version` ('cargo 1.95.0 (…)'), or the command's name where it has none. */
export async function toolVersion(cmd: string, args = ['--version'], cwd = '/'): Promise<string> {
  const run = await runTool(cmd, args, { cwd });
  return run.code === 0 ? (run.stdout || run.stderr).trim().split('\n')[0] : cmd;
}

/** The highest of some dotted versions by compareVersions ('1.70', '2021', '21'), or undefined where none is given. */
export function highestVersion(versions: Array<string | undefined>): string | undefined {
  return versions
    .filter((v): v is string => v !== undefined)
    .reduce<string | undefined>((a, b) => (a === undefined || compareVersions(b, a) > 0 ? b : a), undefined);
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
