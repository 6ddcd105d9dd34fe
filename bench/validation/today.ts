import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mergeRuns, validateRun, type ValidateRun } from './child';

/** Today's code's runs on one chains file, as one, and the stages it left. */
export interface TodayRun {
  run: ValidateRun;
  /** Chains it stopped in: the stage it stopped at and every later stage of its chain were not done. */
  stoppedIn: string[];
  skipped: number;
}

/**
 * Today's code on a chains file (`lines`, one chain a line). It stops the whole run (exit 75) at a stage
 * whose dependencies it cannot resolve, the fault issue 25 was filed for, where this code goes on; so the
 * run is started again, in the same data directory, on the chains after the one it stopped in, until every
 * chain was tried (at most one run a chain). The stage it stopped at and the rest of its chain are
 * skipped: today's rate is over the stages it did, with the CPU it spent on the stage it stopped at.
 */
export async function todayRuns(
  cli: string,
  lines: string[],
  work: string,
  name: string,
  home: string,
  log: (line: string) => void,
): Promise<TodayRun> {
  const chains = lines.map((l) => JSON.parse(l) as { id: string; prs: unknown[] });
  const runs: ValidateRun[] = [];
  const stoppedIn: string[] = [];
  let skipped = 0;
  for (let from = 0, part = 0; from < chains.length; part++) {
    const file = join(work, `${name}.today-${part}.chains.jsonl`);
    await writeFile(file, lines.slice(from).join('\n') + '\n');
    const run = await validateRun(cli, file, join(work, `${name}.today-${part}.jsonl`), home, log);
    runs.push(run);
    const left = chains.slice(from).reduce((n, c) => n + c.prs.length, 0);
    if (run.exitCode === 0 || run.stagesDone >= left) break;
    // The stage it stopped at is the one after the last it reported done: find its chain.
    let at = from;
    let before = 0;
    while (before + chains[at].prs.length <= run.stagesDone) before += chains[at++].prs.length;
    stoppedIn.push(chains[at].id);
    skipped += before + chains[at].prs.length - run.stagesDone;
    log(
      `stopped (exit ${run.exitCode}) in chain ${chains[at].id}; ${chains.length - at - 1} chain(s) left to start again on\n${run.tail}`,
    );
    from = at + 1;
  }
  return { run: mergeRuns(runs), stoppedIn, skipped };
}
