import type { RunnerName, TestRunner } from '../contract';
import { cargoRunner } from './cargo';
import { ctestRunner } from './ctest';
import { exitCodeRunner } from './exit-code';
import { goRunner } from './go';
import { makeRunner } from './make';
import { mavenRunner } from './maven';
import { nodeRunner } from './node';
import { pytestRunner } from './pytest';

const RUNNERS: Record<RunnerName, TestRunner> = {
  pytest: pytestRunner,
  cargo: cargoRunner,
  go: goRunner,
  maven: mavenRunner,
  // No Gradle report reader yet: a Gradle build is judged by its exit code.
  gradle: { ...exitCodeRunner, name: 'gradle' },
  ctest: ctestRunner,
  make: makeRunner,
  node: nodeRunner,
  'exit-code': exitCodeRunner,
};

export function runnerFor(name: RunnerName): TestRunner {
  return RUNNERS[name];
}
