import { InputError } from '../errors';
import { ChainRunSchema, type ChainRun } from '../schemas';
import { readJsonl } from './jsonl';

/** A runs file given on the command line: it must exist and hold at least one run. */
export async function readRunsFile(path: string): Promise<ChainRun[]> {
  const runs = await readJsonl(path, ChainRunSchema, 'chain run');
  if (runs === undefined) throw new InputError(`runs file ${path} does not exist`);
  if (!runs.length) throw new InputError(`${path} holds no runs`);
  return runs;
}

/** Identifies a run across exports: its workflow, or its chain, policy, scaffold and model. */
export function runKey(run: ChainRun): string {
  return run.workflowId ?? `${run.chainId}|${run.policy}|${run.scaffold === 'bash' ? 'bash|' : ''}${run.model ?? ''}`;
}
