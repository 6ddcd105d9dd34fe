import { startChains, type StartOptions } from '../../src/batches/start';
import type { Config } from '../../src/config';
import type { Chain } from '../../src/schemas';
import type { ChainResult } from '../../src/workflows/types';
import { startEngines, type Engines } from './engines';

/** One finished chain: its result and workflow id, and the engines it ran on (still open while `inspect` runs). */
export interface RanChain {
  result: ChainResult;
  workflowId: string;
  engines: Engines;
}

/**
 * Runs one chain on Temporal and Docker, as the workflow tests do: workers on a task queue of their
 * own (they stop when the chain ends, so each chain gets its own), the chain started on them, its
 * result awaited. `inspect` reads what a test needs (the history, the collected runs) before the
 * engines close.
 */
export async function runOneChain<T = undefined>(
  config: Config,
  chain: Chain,
  opts: Omit<StartOptions, 'taskQueue'>,
  inspect: (ran: RanChain) => Promise<T> = async () => undefined as T,
): Promise<Omit<RanChain, 'engines'> & { inspected: T }> {
  const engines = await startEngines(config);
  try {
    const [started] = await startChains(engines.client, config, [chain], { ...opts, taskQueue: engines.taskQueue });
    await Promise.all(engines.workers.map((w) => w.runUntil(started.handle.result())));
    const result = await started.handle.result();
    return {
      result,
      workflowId: started.workflowId,
      inspected: await inspect({ result, workflowId: started.workflowId, engines }),
    };
  } finally {
    await engines.close();
  }
}
