import type { TestRunner } from '../contract';
import { exitCodeRunner } from './exit-code';

/** Stub until the go runner (branch env2) is merged: the exit code of a configured test command only. */
export const goRunner: TestRunner = { ...exitCodeRunner, name: 'go' };
