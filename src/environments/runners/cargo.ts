import type { TestRunner } from '../contract';
import { exitCodeRunner } from './exit-code';

/** Stub until the cargo runner (branch env2) is merged: the exit code of a configured test command only. */
export const cargoRunner: TestRunner = { ...exitCodeRunner, name: 'cargo' };
