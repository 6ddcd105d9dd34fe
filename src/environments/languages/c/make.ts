import type { TestRunner } from '../../contract';
import { parseCaseLines } from '../../runners/case-lines';

/** `make test` (or `make check`), read per case where the tests print Unity, GoogleTest or TAP lines. */
export const makeRunner: TestRunner<'make'> = {
  name: 'make',
  command: (_files, override) => override ?? 'make -k test',
  parse: (output) => {
    const cases = parseCaseLines(output);
    return cases.length ? cases : undefined;
  },
};
