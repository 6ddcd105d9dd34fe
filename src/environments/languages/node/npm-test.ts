import type { TestCase } from '../../../schemas';
import type { TestRunner } from '../../contract';
import { parseCaseLines } from '../../runners/case-lines';
import { shellQuote } from '../../../process/shell-quote';
import { worse } from '../../runners/shell';

/**
 * The package's test script. Per-test outcomes come from TAP (node --test, tap, mocha -R tap) or from
 * the check marks of jest's, vitest's and mocha's default reporters, without the time a test took
 * (jest's "(5 ms)", vitest's bare "5ms"); other reporters leave the exit code.
 */
const MARKED = /^\s*(✓|✔|√|✕|✖|×)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\)|\s+\d+(?:\.\d+)?ms)?$/;
/** vitest's line for a whole file ("✓ src/a.test.ts (4 tests) 2ms"), not a test. */
const FILE_SUMMARY = /\(\d+ tests?(?: \| [^)]*)?\)$/;

export function parseNodeOutput(output: string): TestCase[] | undefined {
  const cases = new Map(parseCaseLines(output).map((c) => [c.id, c.outcome]));
  for (const line of output.split('\n')) {
    const m = MARKED.exec(line);
    // Two tests whose names differ only in a trailing time ("debounces 100ms") share an id: a failure wins.
    if (m && !FILE_SUMMARY.test(m[2]))
      cases.set(m[2], worse(cases.get(m[2]), '✓✔√'.includes(m[1]) ? 'passed' : 'failed'));
  }
  return cases.size ? [...cases].map(([id, outcome]) => ({ id, outcome })) : undefined;
}

export const nodeRunner: TestRunner<'node'> = {
  name: 'node',
  // Arguments after `--` reach the test script's runner (jest, mocha, node --test take file paths).
  command: (files, override) => (override ? override : ['npm test --silent --', ...files.map(shellQuote)].join(' ')),
  parse: parseNodeOutput,
};
