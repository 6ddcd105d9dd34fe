import { stopAllChildren } from './run';

/**
 * A command asked to end (Ctrl-C, or SIGTERM from whoever started it) stops what it started first: a
 * `validate` run's resolvers and builds, a bench's `validate` runs, would otherwise run on for minutes,
 * loading a machine the next run shares. Only children started through run.ts are known; a second
 * signal ends the process at once. `what` names the process in the line it prints.
 */
export function endChildrenOnSignals(what: string): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      console.error(`${signal}: stopping the processes this ${what} started`);
      void stopAllChildren().finally(() => process.exit(code));
    });
  }
}
