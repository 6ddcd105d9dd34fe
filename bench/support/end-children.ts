import { stopAllChildren } from '../../src/process/run';

/**
 * A bench asked to end (Ctrl-C, or SIGTERM from whoever started it) stops what it started first: a
 * `validate` run and the containers and resolvers under it would otherwise run on for minutes,
 * loading a machine the next measurement shares. Only children started through src/process/run.ts
 * are known; a second signal ends the bench at once.
 */
export function endChildrenOnSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      console.error(`${signal}: stopping the processes this bench started`);
      void stopAllChildren().finally(() => process.exit(code));
    });
  }
}
